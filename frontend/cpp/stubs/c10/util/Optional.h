// Stand-in for <c10/util/Optional.h> (see fastci/torch_stub.h).
#pragma once
#include "fastci/torch_stub.h"
