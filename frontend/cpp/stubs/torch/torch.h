// Stand-in for <torch/torch.h> (see fastci/torch_stub.h).
#pragma once
#include "fastci/torch_stub.h"
