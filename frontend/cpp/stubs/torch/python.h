// Stand-in for <torch/python.h> (see fastci/torch_stub.h).
#pragma once
#include "fastci/torch_stub.h"
#include "fastci/pybind11_stub.h"
namespace py = pybind11;
