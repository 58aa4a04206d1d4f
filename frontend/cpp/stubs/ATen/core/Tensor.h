// Stand-in for <ATen/core/Tensor.h> (see fastci/torch_stub.h).
#pragma once
#include "fastci/torch_stub.h"
