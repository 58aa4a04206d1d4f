// Stand-in for <ATen/Dispatch.h> (see fastci/torch_stub.h).
#pragma once
#include "fastci/torch_stub.h"
