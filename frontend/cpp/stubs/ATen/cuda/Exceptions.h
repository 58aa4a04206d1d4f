// Stand-in for <ATen/cuda/Exceptions.h> (see fastci/torch_stub.h).
#pragma once
#include "fastci/cuda_stub.h"
