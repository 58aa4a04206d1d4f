// Stand-in for <ATen/AccumulateType.h> (see fastci/torch_stub.h).
#pragma once
#include "fastci/torch_stub.h"
