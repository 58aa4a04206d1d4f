// Stand-in for <ATen/FunctionalTensorWrapper.h> (see fastci/torch_stub.h).
#pragma once
#include "fastci/torch_stub.h"
