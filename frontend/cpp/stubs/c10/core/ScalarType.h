// Stand-in for <c10/core/ScalarType.h> (see fastci/torch_stub.h).
#pragma once
#include "fastci/torch_stub.h"
