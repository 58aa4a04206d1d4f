// Stand-in for <torch/library.h> (see fastci/torch_stub.h).
#pragma once
#include "fastci/torch_stub.h"
