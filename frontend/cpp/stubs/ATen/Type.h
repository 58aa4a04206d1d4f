// Stand-in for <ATen/Type.h> (see fastci/torch_stub.h).
#pragma once
#include "fastci/torch_stub.h"
