// Stand-in for <ATen/TensorUtils.h> (see fastci/torch_stub.h).
#pragma once
#include "fastci/torch_stub.h"
