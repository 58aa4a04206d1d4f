#pragma once
/// pytest collection reproduced statically: test files, functions, Test classes and unittest
/// TestCases (inherited test methods included), parametrize ids as pytest prints them, fixtures
/// from the module, its classes and the conftest.py files above it, marks and declared GPUs.

#include <string_view>
#include <vector>

#include "frontend/facts.h"
#include "frontend/python/interned_edges.h"
#include "frontend/python/resolver.h"

namespace fastci::frontend::python {

/// Whether pytest collects tests from a file of this name (python_files = test_*.py *_test.py).
bool is_test_file(std::string_view path);

/// Adds the tests of every test module to files[i] (parallel to the resolver's modules), marks
/// test functions SymbolKind::test and adds fixture edges (to `edges`, by file).
void discover_tests(Resolver& resolver, std::vector<FileFacts>& files, InternedEdges& edges);

}  // namespace fastci::frontend::python
