// Stand-in for <torch/script.h> (see fastci/torch_stub.h).
#pragma once
#include "fastci/torch_stub.h"
