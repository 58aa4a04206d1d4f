// Stand-in for <torch/all.h> (see fastci/torch_stub.h).
#pragma once
#include "fastci/torch_stub.h"
