// Stand-in for <ATen/ATen.h> (see fastci/torch_stub.h).
#pragma once
#include "fastci/torch_stub.h"
