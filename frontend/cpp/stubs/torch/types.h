// Stand-in for <torch/types.h> (see fastci/torch_stub.h).
#pragma once
#include "fastci/torch_stub.h"
