// Stand-in for <c10/util/Half.h> (see fastci/torch_stub.h).
#pragma once
#include "fastci/torch_stub.h"
