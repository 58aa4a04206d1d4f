// Stand-in for <ATen/Functions.h> (see fastci/torch_stub.h).
#pragma once
#include "fastci/torch_stub.h"
