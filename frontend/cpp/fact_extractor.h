#pragma once
/// Internal: the Clang AST consumer that turns one parsed translation unit into facts.

#include <map>
#include <memory>
#include <string>

#include "frontend/facts.h"

namespace clang {
class ASTConsumer;
class CompilerInstance;
}  // namespace clang

namespace fastci::frontend::cpp {

/// What the extractor needs to know and where it writes.
struct ExtractionTarget {
  std::string repository;   ///< absolute, normalised, no trailing '/'
  std::string main_file;    ///< repository-relative path of the translation unit
  FileFacts* facts = nullptr;
  /// Filled with repository files the unit read (relative path -> content hash), main file excluded.
  std::map<std::string, std::string>* headers = nullptr;
};

/// An AST consumer that fills `target` when the translation unit is complete.
std::unique_ptr<clang::ASTConsumer> make_fact_consumer(clang::CompilerInstance& compiler,
                                                       ExtractionTarget target);

}  // namespace fastci::frontend::cpp
