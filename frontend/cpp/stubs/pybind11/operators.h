// Stand-in for <pybind11/operators.h> (see fastci/torch_stub.h).
#pragma once
#include "fastci/pybind11_stub.h"
