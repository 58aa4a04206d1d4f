#include "frontend/cpp/macro_recorder.h"

#include <clang/Frontend/CompilerInstance.h>
#include <clang/Lex/MacroInfo.h>
#include <clang/Lex/PPCallbacks.h>
#include <clang/Lex/Preprocessor.h>
#include <llvm/ADT/DenseMap.h>

#include <map>

#include "frontend/cpp/repository_files.h"
#include "util/hash.h"

namespace fastci::frontend::cpp {
namespace {

class MacroRecorder : public clang::PPCallbacks {
 public:
  MacroRecorder(clang::Preprocessor& preprocessor, RepositoryFiles& files, std::shared_ptr<MacroFacts> out)
      : preprocessor_(preprocessor), files_(files), out_(std::move(out)) {}

  void MacroDefined(const clang::Token& name, const clang::MacroDirective* directive) override {
    const clang::MacroInfo* info = directive != nullptr ? directive->getMacroInfo() : nullptr;
    if (info == nullptr || name.getIdentifierInfo() == nullptr) return;
    const std::string* file = files_.relative(info->getDefinitionLoc());
    if (file == nullptr) return;
    const clang::SourceManager& sources = preprocessor_.getSourceManager();
    MacroDefinition definition;
    definition.name = name.getIdentifierInfo()->getName().str();
    definition.file = *file;
    definition.id = "cpp-macro:" + *file + ":" + definition.name;
    if (int seen = seen_[definition.id]++; seen > 0) definition.id += "#" + std::to_string(seen + 1);
    definition.first_line = static_cast<int>(sources.getExpansionLineNumber(info->getDefinitionLoc()));
    definition.last_line = static_cast<int>(sources.getExpansionLineNumber(info->getDefinitionEndLoc()));
    definition.hash = util::hash64(spelling(definition.name, *info));
    index_[info] = out_->definitions.size();
    out_->definitions.push_back(std::move(definition));
  }

  void MacroExpands(const clang::Token&, const clang::MacroDefinition& macro, clang::SourceRange range,
                    const clang::MacroArgs*) override {
    const auto found = index_.find(macro.getMacroInfo());
    if (found == index_.end()) return;
    out_->expansions.emplace_back(found->second,
                                  preprocessor_.getSourceManager().getExpansionLoc(range.getBegin()));
  }

 private:
  /// The definition as the compiler sees it: `#define A(x) x+1` and `#define A( x ) x + 1` agree.
  std::string spelling(const std::string& name, const clang::MacroInfo& info) const {
    std::string text = name;
    if (info.isFunctionLike()) {
      text += '(';
      for (const clang::IdentifierInfo* parameter : info.params()) text += parameter->getName().str() + ',';
      text += info.isVariadic() ? "...)" : ")";
    }
    for (const clang::Token& token : info.tokens()) {
      text += '\x1f';
      if (token.hasLeadingSpace()) text += ' ';  // `a ## b` versus `a##b` is layout, but `#x` spacing is not
      text += preprocessor_.getSpelling(token);
    }
    return text;
  }

  clang::Preprocessor& preprocessor_;
  RepositoryFiles& files_;
  std::shared_ptr<MacroFacts> out_;
  llvm::DenseMap<const clang::MacroInfo*, std::size_t> index_;
  std::map<std::string, int> seen_;
};

}  // namespace

void record_macros(clang::CompilerInstance& compiler, RepositoryFiles& files, std::shared_ptr<MacroFacts> out) {
  clang::Preprocessor& preprocessor = compiler.getPreprocessor();
  preprocessor.addPPCallbacks(std::make_unique<MacroRecorder>(preprocessor, files, std::move(out)));
}

}  // namespace fastci::frontend::cpp
