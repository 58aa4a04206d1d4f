// Stand-in for <c10/util/Exception.h> (see fastci/torch_stub.h).
#pragma once
#include "fastci/torch_stub.h"
