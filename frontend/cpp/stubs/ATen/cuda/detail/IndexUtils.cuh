// Stand-in for <ATen/cuda/detail/IndexUtils.cuh> (see fastci/torch_stub.h).
#pragma once
#include "fastci/cuda_stub.h"
