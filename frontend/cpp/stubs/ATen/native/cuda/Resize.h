// Stand-in for <ATen/native/cuda/Resize.h> (see fastci/torch_stub.h).
#pragma once
#include "fastci/cuda_stub.h"
