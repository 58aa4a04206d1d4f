// CUDA 13 removed this header; clang 19 CUDA wrappers still include it.
#pragma once
