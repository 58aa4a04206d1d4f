// Stand-in for <c10/cuda/CUDAException.h> (see fastci/torch_stub.h).
#pragma once
#include "fastci/cuda_stub.h"
