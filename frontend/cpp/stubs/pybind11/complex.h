// Stand-in for <pybind11/complex.h> (see fastci/torch_stub.h).
#pragma once
#include "fastci/pybind11_stub.h"
