// Stand-in for <torch/version.h> (see fastci/torch_stub.h).
#pragma once
#include "fastci/torch_stub.h"
