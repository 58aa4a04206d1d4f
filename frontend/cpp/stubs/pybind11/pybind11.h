// Stand-in for <pybind11/pybind11.h> (see fastci/torch_stub.h).
#pragma once
#include "fastci/pybind11_stub.h"
