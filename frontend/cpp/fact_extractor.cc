#include "frontend/cpp/fact_extractor.h"

#include <clang/AST/ASTConsumer.h>
#include <clang/AST/ASTContext.h>
#include <clang/AST/ASTLambda.h>
#include <clang/AST/Attr.h>
#include <clang/AST/DeclTemplate.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/PrettyPrinter.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Lex/Lexer.h>
#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/DenseSet.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>

#include "frontend/cpp/macro_recorder.h"
#include "frontend/cpp/repository_files.h"
#include "util/hash.h"

namespace fastci::frontend::cpp {
namespace {

using namespace clang;

/// Names of CUDA runtime calls that launch the kernel passed to them.
bool is_runtime_launch(const FunctionDecl* callee) {
  const IdentifierInfo* name = callee->getIdentifier();
  if (name == nullptr) return false;
  const llvm::StringRef text = name->getName();
  return text == "cudaLaunchKernel" || text == "cudaLaunchCooperativeKernel" ||
         text == "cudaLaunchKernelEx" || text == "cudaLaunchKernelExC";
}

/// Calls `visit` on `root` and its descendants in pre-order until it returns true.
template <typename Visit>
bool find_in(const Stmt* root, Visit&& visit) {
  if (root == nullptr) return false;
  if (visit(root)) return true;
  for (const Stmt* child : root->children())
    if (find_in(child, visit)) return true;
  return false;
}

/// The text of the first string literal in an expression (names built with `#x "_suffix"` are
/// already concatenated by then).
std::optional<std::string> first_string(const Expr* expression) {
  std::optional<std::string> text;
  find_in(expression, [&](const Stmt* node) {
    if (const auto* literal = dyn_cast<StringLiteral>(node)) {
      if (literal->getCharByteWidth() == 1) text = literal->getString().str();
      return true;
    }
    return false;
  });
  return text;
}

/// The op name of a TORCH_LIBRARY schema: "ns::op.overload(Tensor x) -> Tensor" -> "op".
std::string op_name_from_schema(std::string schema) {
  schema = schema.substr(0, schema.find('('));
  if (const auto scope = schema.rfind("::"); scope != std::string::npos) schema = schema.substr(scope + 2);
  schema = schema.substr(0, schema.find('.'));
  const auto first = schema.find_first_not_of(" \t\n");
  const auto last = schema.find_last_not_of(" \t\n");
  return first == std::string::npos ? std::string() : schema.substr(first, last - first + 1);
}

/// The name of the first enumerator referenced in an expression (c10::DispatchKey::CUDA -> "CUDA").
std::string first_enumerator(const Expr* expression, llvm::StringRef enum_name) {
  std::string name;
  find_in(expression, [&](const Stmt* node) {
    const auto* reference = dyn_cast<DeclRefExpr>(node);
    if (reference == nullptr) return false;
    const auto* constant = dyn_cast<EnumConstantDecl>(reference->getDecl());
    if (constant == nullptr) return false;
    const auto* owner = dyn_cast<EnumDecl>(constant->getDeclContext());
    if (owner == nullptr || owner->getName() != enum_name) return false;
    name = constant->getName().str();
    return true;
  });
  return name;
}

/// A binding found in a registration function, resolved once the whole unit is seen.
struct PendingBinding {
  enum class Source { pybind11, torch_library } source = Source::pybind11;
  const FunctionDecl* registration = nullptr;  ///< PYBIND11_MODULE / TORCH_LIBRARY body or a helper
  std::string python_name;
  std::string dispatch_key;                    ///< explicit torch::dispatch key, if any
  bool implementation = false;                 ///< TORCH_LIBRARY m.impl rather than m.def
  std::vector<std::string> targets;
  std::string file;
  int line = 0, last_line = 0;
  SourceRange entry;  ///< the entry alone: `.def(...)` of a chain, not the chain before it
  std::uint64_t hash = 0;
};

/// A call through a virtual method, expanded to every overrider once all classes are seen.
struct PendingVirtualCall {
  std::string from;
  const CXXMethodDecl* method = nullptr;
  std::string file;
  int line = 0;
};

/// Walks the repository's declarations (template instantiations included) and records facts.
class FactVisitor : public RecursiveASTVisitor<FactVisitor> {
  using Base = RecursiveASTVisitor<FactVisitor>;

 public:
  FactVisitor(ASTContext& context, const ExtractionTarget& target, RepositoryFiles& files, const MacroFacts& macros)
      : context_(context),
        sources_(context.getSourceManager()),
        policy_(context.getLangOpts()),
        files_(files),
        macros_(macros),
        target_(target),
        facts_(*target.facts) {
    policy_.SuppressTagKeyword = true;
    policy_.FullyQualifiedName = true;
    policy_.AnonymousTagLocations = false;
    policy_.SuppressDefaultTemplateArgs = true;
    policy_.SplitTemplateClosers = false;
    policy_.Bool = true;
  }

  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitImplicitCode() const { return false; }

  bool TraverseDecl(Decl* declaration) {
    if (declaration == nullptr) return true;
    if (!isa<TranslationUnitDecl>(declaration) && files_.relative(declaration->getLocation()) == nullptr)
      return true;  // outside the repository: system, CUDA and stub headers
    if (declaration->isImplicit()) return true;  // compiler-generated members hold no written code
    if (functions_.empty())
      if (auto id = add_declaration_symbol(declaration)) {
        declarations_.push_back(*id);
        const bool result = Base::TraverseDecl(declaration);
        declarations_.pop_back();
        return result;
      }
    auto* function = dyn_cast<FunctionDecl>(declaration);
    if (function == nullptr || !function->doesThisDeclarationHaveABody() ||
        isLambdaCallOperator(function))
      return Base::TraverseDecl(declaration);
    add_function_symbol(function);
    if (auto module = module_of(function)) pybind11_modules_[function_id(function)] = *module;
    functions_.push_back(function);
    const bool result = Base::TraverseDecl(declaration);
    functions_.pop_back();
    return result;
  }

  bool VisitCXXMethodDecl(CXXMethodDecl* method) {
    for (const CXXMethodDecl* base : method->overridden_methods()) {
      overriders_[base->getCanonicalDecl()].push_back(method);
      add_edge(function_id(base), function_id(method), EdgeKind::override_, method->getLocation());
    }
    return true;
  }

  bool VisitVarDecl(VarDecl* variable) {
    const CXXRecordDecl* type = variable->getType()->getAsCXXRecordDecl();
    if (type == nullptr || type->getQualifiedNameAsString() != "torch::detail::TorchLibraryInit")
      return true;
    const auto* construct = dyn_cast_or_null<CXXConstructExpr>(
        variable->getInit() ? variable->getInit()->IgnoreImplicit() : nullptr);
    if (construct == nullptr || construct->getNumArgs() < 4) return true;
    const FunctionDecl* init = first_function(construct->getArg(1));
    const auto ns = first_string(construct->getArg(2));
    if (init == nullptr || !ns) return true;
    library_inits_[init->getCanonicalDecl()] = {*ns, first_enumerator(construct->getArg(3), "DispatchKey")};
    return true;
  }

  bool VisitCallExpr(CallExpr* call) {
    const FunctionDecl* caller = current_function();
    if (caller == nullptr) return true;
    if (auto* reference = dyn_cast<DeclRefExpr>(call->getCallee()->IgnoreParenImpCasts()))
      callee_references_.insert(reference);
    if (auto* launch = dyn_cast<CUDAKernelCallExpr>(call)) {
      record_launch(caller, launch);
      return true;
    }
    const FunctionDecl* callee = call->getDirectCallee();
    if (callee == nullptr) {
      for (const FunctionDecl* candidate : unresolved_candidates(call->getCallee()))
        add_edge(function_id(caller), function_id(candidate), EdgeKind::call, call->getBeginLoc());
      return true;
    }
    if (is_runtime_launch(callee) && !in_repository(callee)) record_runtime_launch(caller, call, callee);
    if (auto* member = dyn_cast<CXXMemberCallExpr>(call)) record_binding_call(caller, member);
    if (!in_repository(callee) || isLambdaCallOperator(callee)) return true;
    ensure_symbol(callee);
    EdgeKind kind = EdgeKind::call;
    const auto* method = dyn_cast<CXXMethodDecl>(callee);
    if (method != nullptr && method->isVirtual() && !is_qualified(call)) {
      kind = EdgeKind::virtual_call;
      const auto [file, line] = where(call->getBeginLoc());
      virtual_calls_.push_back({function_id(caller), method, file, line});
    }
    add_edge(function_id(caller), function_id(callee), kind, call->getBeginLoc());
    return true;
  }

  bool VisitCXXConstructExpr(CXXConstructExpr* construct) {
    const FunctionDecl* caller = current_function();
    const CXXConstructorDecl* constructor = construct->getConstructor();
    if (caller == nullptr || constructor == nullptr || constructor->isImplicit() ||
        !in_repository(constructor))
      return true;
    ensure_symbol(constructor);
    add_edge(function_id(caller), function_id(constructor), EdgeKind::call, construct->getBeginLoc());
    return true;
  }

  bool VisitTypeLoc(TypeLoc type) {
    const Decl* named = nullptr;
    if (auto tag = type.getAs<TagTypeLoc>()) named = tag.getDecl();
    else if (auto alias = type.getAs<TypedefTypeLoc>()) named = alias.getTypedefNameDecl();
    else if (auto injected = type.getAs<InjectedClassNameTypeLoc>()) named = injected.getDecl();
    else if (auto specialization = type.getAs<TemplateSpecializationTypeLoc>())
      named = specialization.getTypePtr()->getTemplateName().getAsTemplateDecl();
    if (named != nullptr) add_use(named, type.getBeginLoc());
    return true;
  }

  bool VisitMemberExpr(MemberExpr* member) {
    const ValueDecl* target = member->getMemberDecl();
    if (isa<FieldDecl, IndirectFieldDecl, VarDecl>(target)) add_use(target, member->getMemberLoc());
    return true;
  }

  bool VisitDeclRefExpr(DeclRefExpr* reference) {
    const ValueDecl* value = reference->getDecl();
    if (const auto* variable = dyn_cast<VarDecl>(value); variable != nullptr && !variable->isLocalVarDeclOrParm())
      add_use(variable, reference->getLocation());
    if (isa<EnumConstantDecl>(value)) add_use(value, reference->getLocation());
    const FunctionDecl* caller = current_function();
    const auto* function = dyn_cast<FunctionDecl>(reference->getDecl());
    if (caller == nullptr || function == nullptr || callee_references_.contains(reference) ||
        !in_repository(function) || isLambdaCallOperator(function))
      return true;
    ensure_symbol(function);
    add_edge(function_id(caller), function_id(function), EdgeKind::reference, reference->getBeginLoc());
    return true;
  }

  /// Resolves what needed the whole unit: overriders of virtual calls, binding module names,
  /// and the repository headers read.
  void finish() {
    expand_virtual_calls();
    resolve_bindings();
    add_macro_symbols();
    add_file_symbols();
    collect_headers();
  }

 private:
  const FunctionDecl* current_function() const { return functions_.empty() ? nullptr : functions_.back(); }

  bool in_repository(const Decl* declaration) { return files_.relative(declaration->getLocation()) != nullptr; }

  /// The innermost function or declaration whose code is being visited, or nullptr at file scope.
  const std::string* current_user() {
    if (!functions_.empty()) return &function_id(functions_.back());
    return declarations_.empty() ? nullptr : &declarations_.back();
  }

  std::pair<std::string, int> where(SourceLocation location) {
    const std::string* file = files_.relative(location);
    if (file == nullptr) return {target_.main_file, 0};
    return {*file, static_cast<int>(sources_.getExpansionLineNumber(location))};
  }

  /// A type as it appears in ids: canonical (aliases resolved) unless it depends on a template
  /// parameter, top-level qualifiers dropped.
  std::string type_text(QualType type) {
    if (!type->isDependentType()) type = context_.getCanonicalType(type);
    return type.getLocalUnqualifiedType().getAsString(policy_);
  }

  /// An integral template argument as the Itanium demangler spells it ("4u", "(quantize::Type)0",
  /// "(char)65"), which is how launch records (Kineto, the interposer) name instantiations; Clang would
  /// print "4", "quantize::Type::Symmetric" and "'A'".
  std::string demangler_integral(const TemplateArgument& argument) {
    QualType type = argument.getIntegralType();
    const llvm::APSInt& value = argument.getAsIntegral();
    if (type->isBooleanType()) return value.getBoolValue() ? "true" : "false";
    llvm::SmallString<24> digits_buffer;
    value.toString(digits_buffer, 10);
    std::string digits(digits_buffer);
    if (const auto* builtin = type->getAs<BuiltinType>()) {
      switch (builtin->getKind()) {
        case BuiltinType::Int: return digits;
        case BuiltinType::UInt: return digits + "u";
        case BuiltinType::Long: return digits + "l";
        case BuiltinType::ULong: return digits + "ul";
        case BuiltinType::LongLong: return digits + "ll";
        case BuiltinType::ULongLong: return digits + "ull";
        default: break;
      }
    }
    return "(" + type_text(type) + ")" + digits;
  }

  void append_template_argument(const TemplateArgument& argument, std::vector<std::string>& out) {
    if (argument.getKind() == TemplateArgument::Pack) {
      for (const TemplateArgument& element : argument.pack_elements()) append_template_argument(element, out);
      return;
    }
    if (argument.getKind() == TemplateArgument::Type) {
      out.push_back(type_text(argument.getAsType()));
      return;
    }
    std::string text;
    llvm::raw_string_ostream stream(text);
    if (argument.getKind() == TemplateArgument::Integral) {
      out.push_back(demangler_integral(argument));
      return;
    }
    argument.print(policy_, stream, /*IncludeType=*/false);
    out.push_back(stream.str());
  }

  std::vector<std::string> template_arguments(const FunctionDecl* function) {
    std::vector<std::string> out;
    if (const TemplateArgumentList* arguments = function->getTemplateSpecializationArgs())
      for (const TemplateArgument& argument : arguments->asArray()) append_template_argument(argument, out);
    return out;
  }

  static bool is_device_code(const FunctionDecl* function) {
    return function->hasAttr<CUDAGlobalAttr>() || function->hasAttr<CUDADeviceAttr>();
  }

  /// "cpp:ns::Class::method(int, const at::Tensor &) const", "cuda:ns::kernel<float>(float *)";
  /// functions with internal linkage defined in the unit itself are prefixed with its path.
  const std::string& function_id(const FunctionDecl* function) {
    auto [entry, inserted] = ids_.try_emplace(function);
    if (!inserted) return entry->second;
    std::string id = is_device_code(function) ? "cuda:" : "cpp:";
    llvm::raw_string_ostream stream(id);
    if (!function->isExternallyVisible() && !isa<CXXMethodDecl>(function)) {
      const std::string* file = files_.relative(function->getLocation());
      if (file != nullptr && *file == target_.main_file) stream << *file << "::";
    }
    function->printQualifiedName(stream, policy_);
    if (const TemplateArgumentList* arguments = function->getTemplateSpecializationArgs()) {
      std::vector<std::string> texts;
      for (const TemplateArgument& argument : arguments->asArray()) append_template_argument(argument, texts);
      stream << '<';
      for (std::size_t i = 0; i < texts.size(); ++i) stream << (i ? ", " : "") << texts[i];
      stream << '>';
    }
    stream << '(';
    for (unsigned i = 0; i < function->getNumParams(); ++i)
      stream << (i ? ", " : "") << type_text(function->getParamDecl(i)->getType());
    if (function->isVariadic()) stream << (function->getNumParams() ? ", ..." : "...");
    stream << ')';
    if (const auto* method = dyn_cast<CXXMethodDecl>(function)) {
      if (method->isConst()) stream << " const";
      if (method->isVolatile()) stream << " volatile";
      if (method->getRefQualifier() == RQ_LValue) stream << " &";
      if (method->getRefQualifier() == RQ_RValue) stream << " &&";
    }
    entry->second = stream.str();
    return entry->second;
  }

  /// Calls `visit(token, offset, spelling)` on the raw tokens (no comments, no preprocessing) of a
  /// file from `offset` on, until it returns false; false when the file cannot be read.
  template <typename Visit>
  bool for_each_raw_token(FileID file, unsigned offset, Visit&& visit) {
    bool invalid = false;
    const llvm::StringRef buffer = sources_.getBufferData(file, &invalid);
    if (invalid || offset > buffer.size()) return false;
    Lexer lexer(sources_.getLocForStartOfFile(file), context_.getLangOpts(), buffer.begin(), buffer.begin() + offset,
                buffer.end());
    Token token;
    while (true) {
      lexer.LexFromRawLexer(token);
      if (token.is(tok::eof)) return true;
      const unsigned at = sources_.getFileOffset(token.getLocation());
      if (!visit(token, at, llvm::StringRef(buffer.data() + at, token.getLength()))) return true;
    }
  }

  /// Hash of the raw tokens between two locations of one file: comments and layout do not count,
  /// nor tokens inside `holes` (file offsets of nested symbols, which compare on their own).
  std::uint64_t token_hash(SourceRange range, const std::vector<std::pair<unsigned, unsigned>>& holes = {}) {
    const auto span = span_of(range, {});
    if (!span) return 0;
    std::string joined;
    for_each_raw_token(span->file, span->begin, [&](const Token&, unsigned offset, llvm::StringRef text) {
      if (offset > span->end) return false;
      if (std::none_of(holes.begin(), holes.end(), [&](const auto& hole) { return offset >= hole.first && offset <= hole.second; })) {
        joined.append(text.data(), text.size());
        joined.push_back('\x1f');
      }
      return true;
    });
    return util::hash64(joined);
  }

  /// Emits the symbol of a function whose definition (or template pattern) is in the repository.
  void ensure_symbol(const FunctionDecl* function) {
    if (function->isDependentContext() && !function->doesThisDeclarationHaveABody()) return;
    add_function_symbol(function);
  }

  void add_function_symbol(const FunctionDecl* function) {
    // Compiler-generated and defaulted members hold no code of their own.
    if (function->isImplicit() || function->isDefaulted() || function->isDeleted()) return;
    const std::string& id = function_id(function);
    add_instantiation_symbol(function);
    if (symbol_ids_.contains(id)) return;
    const FunctionDecl* pattern = function->getTemplateInstantiationPattern();
    const FunctionDecl* located = pattern != nullptr ? pattern : function;
    if (!located->doesThisDeclarationHaveABody()) located = located->getDefinition();
    if (located == nullptr) return;  // declared here, defined in another unit
    SourceRange range = with_attributes(located, located->getSourceRange());
    if (const FunctionTemplateDecl* described = located->getDescribedFunctionTemplate())
      range = described->getSourceRange();
    const std::string* file = files_.relative(range.getBegin());
    if (file == nullptr) return;
    symbol_ids_.insert(id);
    push_symbol(id, id.substr(id.find(':') + 1), is_device_code(function) ? Language::cuda : Language::cpp,
                function->hasAttr<CUDAGlobalAttr>() ? SymbolKind::kernel
                : isa<CXXMethodDecl>(function)      ? SymbolKind::method
                                                    : SymbolKind::function,
                *file, static_cast<int>(sources_.getExpansionLineNumber(range.getBegin())),
                static_cast<int>(sources_.getExpansionLineNumber(sources_.getExpansionRange(range).getEnd())),
                token_hash(range));
    add_span(range, id);
    if (pattern != nullptr && pattern != function) {
      // A specialization is its template's code: a change to the template reaches its callers.
      add_function_symbol(pattern);
      add_edge(id, function_id(pattern), EdgeKind::reference, located->getLocation());
    }
  }

  void add_edge(const std::string& from, const std::string& to, EdgeKind kind, SourceLocation location) {
    const auto [file, line] = where(location);
    add_edge(from, to, kind, file, line);
  }

  void add_edge(const std::string& from, const std::string& to, EdgeKind kind, const std::string& file, int line) {
    if (!edge_keys_.emplace(from, to, static_cast<int>(kind), file, line).second) return;
    facts_.edges.push_back(Edge{from, to, kind, file, line});
  }

  /// Repository functions a dependent call may resolve to (overload candidates as written).
  std::vector<const FunctionDecl*> unresolved_candidates(const Expr* callee) {
    std::vector<const FunctionDecl*> out;
    const auto* overloads = dyn_cast<OverloadExpr>(callee->IgnoreParenImpCasts());
    if (overloads == nullptr) return out;
    for (const NamedDecl* candidate : overloads->decls()) {
      candidate = candidate->getUnderlyingDecl();
      // f<T>(...) can only be a template.
      if (overloads->hasExplicitTemplateArgs() && !isa<FunctionTemplateDecl>(candidate)) continue;
      const FunctionDecl* function = dyn_cast<FunctionDecl>(candidate);
      if (const auto* templated = dyn_cast<FunctionTemplateDecl>(candidate)) function = templated->getTemplatedDecl();
      if (function == nullptr || !in_repository(function)) continue;
      if (const FunctionDecl* definition = function->getDefinition()) function = definition;
      ensure_symbol(function);
      out.push_back(function);
    }
    return out;
  }

  static bool is_qualified(const CallExpr* call) {
    if (const auto* member = dyn_cast<CXXMemberCallExpr>(call))
      if (const auto* expression = dyn_cast<MemberExpr>(member->getCallee()->IgnoreParens()))
        return expression->hasQualifier();
    return false;
  }

  /// The source text of an expression as written: macro arguments and macro bodies by their
  /// spelling (a launch inside a macro reads "grid", not the macro call).
  std::string text_of(const Expr* expression) {
    if (expression == nullptr || isa<CXXDefaultArgExpr>(expression)) return "";
    const SourceRange range = expression->getSourceRange();
    if (range.getBegin().isMacroID() || range.getEnd().isMacroID()) {
      const SourceLocation begin = sources_.getSpellingLoc(range.getBegin());
      const SourceLocation end = sources_.getSpellingLoc(range.getEnd());
      if (sources_.getFileID(begin) == sources_.getFileID(end) && !sources_.isBeforeInTranslationUnit(end, begin)) {
        const std::string text = Lexer::getSourceText(CharSourceRange::getTokenRange(begin, end), sources_,
                                                      context_.getLangOpts()).str();
        if (!text.empty()) return text;
      }
    }
    return Lexer::getSourceText(sources_.getExpansionRange(range), sources_, context_.getLangOpts()).str();
  }

  void add_launch(const FunctionDecl* caller, const std::string& kernel, std::vector<std::string> arguments,
                  std::string grid, std::string block, std::string shared, std::string stream,
                  SourceLocation location) {
    LaunchSite site;
    site.host_function = function_id(caller);
    site.kernel = kernel;
    site.template_arguments = std::move(arguments);
    site.grid = std::move(grid);
    site.block = std::move(block);
    site.shared_memory = std::move(shared);
    site.stream = std::move(stream);
    std::tie(site.file, site.line) = where(location);
    for (const LaunchSite& existing : facts_.launches)
      if (existing.host_function == site.host_function && existing.kernel == site.kernel &&
          existing.line == site.line && existing.file == site.file)
        return;
    add_edge(site.host_function, site.kernel, EdgeKind::kernel_launch, site.file, site.line);
    facts_.launches.push_back(std::move(site));
  }

  void record_launch(const FunctionDecl* caller, const CUDAKernelCallExpr* launch) {
    std::string kernel;
    std::vector<std::string> arguments;
    if (const FunctionDecl* callee = launch->getDirectCallee()) {
      ensure_symbol(callee);
      kernel = function_id(callee);
      arguments = template_arguments(callee);
    } else {
      const auto candidates = unresolved_candidates(launch->getCallee());
      if (candidates.empty()) return;
      kernel = function_id(candidates.front());
    }
    const CallExpr* config = launch->getConfig();
    auto argument = [&](unsigned index) -> std::string {
      return config != nullptr && index < config->getNumArgs() ? text_of(config->getArg(index)) : "";
    };
    add_launch(caller, kernel, std::move(arguments), argument(0), argument(1), argument(2), argument(3),
               launch->getBeginLoc());
  }

  /// The first function an expression names: &f, f, overload_cast<...>(&C::f), TORCH_FN(f).
  static const FunctionDecl* first_function(const Expr* expression) {
    const FunctionDecl* found = nullptr;
    find_in(expression, [&](const Stmt* node) {
      if (const auto* reference = dyn_cast<DeclRefExpr>(node)) {
        if (const auto* function = dyn_cast<FunctionDecl>(reference->getDecl())) {
          found = function;
          return true;
        }
      }
      if (const auto* value = dyn_cast<Expr>(node)) {
        // TORCH_FN(f) carries f as a template argument of its type.
        if (const auto* record = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
                value->getType().isNull() ? nullptr : value->getType()->getAsCXXRecordDecl())) {
          for (const TemplateArgument& argument : record->getTemplateArgs().asArray())
            if (argument.getKind() == TemplateArgument::Declaration)
              if (const auto* function = dyn_cast<FunctionDecl>(argument.getAsDecl())) {
                found = function;
                return true;
              }
        }
      }
      return false;
    });
    return found;
  }

  void record_runtime_launch(const FunctionDecl* caller, const CallExpr* call, const FunctionDecl* callee) {
    const bool extended = callee->getName().starts_with("cudaLaunchKernelEx");
    const unsigned kernel_index = extended ? 1 : 0;
    if (call->getNumArgs() <= kernel_index) return;
    const FunctionDecl* kernel = first_function(call->getArg(kernel_index));
    if (kernel == nullptr) return;
    ensure_symbol(kernel);
    auto argument = [&](unsigned index) { return index < call->getNumArgs() ? text_of(call->getArg(index)) : ""; };
    if (extended) {
      std::string config = argument(0);
      const std::string access = !config.empty() && config[0] == '&' ? config.substr(1) + "." : "(" + config + ")->";
      add_launch(caller, function_id(kernel), template_arguments(kernel), access + "gridDim", access + "blockDim",
                 access + "dynamicSmemBytes", access + "stream", call->getBeginLoc());
    } else {
      add_launch(caller, function_id(kernel), template_arguments(kernel), argument(1), argument(2), argument(4),
                 argument(5), call->getBeginLoc());
    }
  }

  /// Functions a bound callable stands for: the function itself, or what a lambda calls.
  std::vector<std::string> binding_targets(const Expr* expression) {
    std::vector<std::string> targets;
    if (expression == nullptr) return targets;
    if (const auto* lambda = dyn_cast<LambdaExpr>(expression->IgnoreImplicit()->IgnoreParenImpCasts())) {
      find_in(lambda->getBody(), [&](const Stmt* node) {
        const FunctionDecl* function = nullptr;
        if (const auto* call = dyn_cast<CallExpr>(node)) function = call->getDirectCallee();
        if (const auto* construct = dyn_cast<CXXConstructExpr>(node)) function = construct->getConstructor();
        if (function != nullptr && in_repository(function) && !isLambdaCallOperator(function)) {
          ensure_symbol(function);
          const std::string& id = function_id(function);
          if (std::find(targets.begin(), targets.end(), id) == targets.end()) targets.push_back(id);
        }
        return false;
      });
      return targets;
    }
    if (const FunctionDecl* function = first_function(expression)) {
      if (in_repository(function)) ensure_symbol(function);
      targets.push_back(function_id(function));
    }
    return targets;
  }

  /// Constructors of the bound class matching py::init<Args...>().
  std::vector<std::string> constructor_targets(const CallExpr* init, const ClassTemplateSpecializationDecl* binder) {
    std::vector<std::string> targets;
    const FunctionDecl* factory = init->getDirectCallee();
    if (factory == nullptr || binder->getTemplateArgs().size() == 0) return targets;
    const TemplateArgument& bound = binder->getTemplateArgs()[0];
    if (bound.getKind() != TemplateArgument::Type) return targets;
    const CXXRecordDecl* record = bound.getAsType()->getAsCXXRecordDecl();
    if (record == nullptr || (record = record->getDefinition()) == nullptr) return targets;
    std::vector<QualType> wanted;
    if (const TemplateArgumentList* arguments = factory->getTemplateSpecializationArgs())
      for (const TemplateArgument& argument : arguments->asArray()) {
        if (argument.getKind() == TemplateArgument::Pack) {
          for (const TemplateArgument& element : argument.pack_elements())
            if (element.getKind() == TemplateArgument::Type) wanted.push_back(element.getAsType());
        } else if (argument.getKind() == TemplateArgument::Type) {
          wanted.push_back(argument.getAsType());
        }
      }
    for (const CXXConstructorDecl* constructor : record->ctors()) {
      if (constructor->isImplicit() || constructor->getNumParams() != wanted.size()) continue;
      bool matches = true;
      for (unsigned i = 0; i < wanted.size() && matches; ++i) {
        QualType parameter = constructor->getParamDecl(i)->getType().getNonReferenceType().getUnqualifiedType();
        matches = context_.hasSameUnqualifiedType(parameter, wanted[i].getNonReferenceType());
      }
      if (!matches) continue;
      ensure_symbol(constructor);
      targets.push_back(function_id(constructor));
    }
    return targets;
  }

  /// The Python class name of a py::class_ chain: py::class_<T>(m, "Name").def(...).def(...).
  std::optional<std::string> class_name(const Expr* object) {
    while (object != nullptr) {
      object = object->IgnoreImplicit()->IgnoreParenImpCasts();
      if (const auto* chained = dyn_cast<CXXMemberCallExpr>(object)) {
        object = chained->getImplicitObjectArgument();
        continue;
      }
      if (const auto* reference = dyn_cast<DeclRefExpr>(object)) {
        const auto* variable = dyn_cast<VarDecl>(reference->getDecl());
        object = variable != nullptr ? variable->getInit() : nullptr;
        if (object == nullptr) return std::nullopt;
        if (const auto* construct = dyn_cast<CXXConstructExpr>(object->IgnoreImplicit());
            construct != nullptr && construct->getNumArgs() >= 2)
          return first_string(construct->getArg(1));
        continue;
      }
      std::optional<std::string> name;
      find_in(object, [&](const Stmt* node) {
        const auto* construct = dyn_cast<CXXConstructExpr>(node);
        if (construct == nullptr || construct->getNumArgs() < 2) return false;
        name = first_string(construct->getArg(1));
        return true;
      });
      return name;
    }
    return std::nullopt;
  }

  void record_binding_call(const FunctionDecl* caller, const CXXMemberCallExpr* call) {
    const CXXMethodDecl* method = call->getMethodDecl();
    if (method == nullptr || method->getIdentifier() == nullptr || call->getNumArgs() == 0) return;
    const std::string owner = method->getParent()->getQualifiedNameAsString();
    const llvm::StringRef name = method->getName();
    PendingBinding binding;
    binding.registration = caller;
    std::tie(binding.file, binding.line) = where(call->getExprLoc());
    binding.entry = SourceRange(call->getExprLoc(), call->getRParenLoc());
    binding.last_line = std::max(binding.line, where(call->getRParenLoc()).second);
    binding.hash = token_hash(binding.entry);
    if ((owner == "pybind11::module_" || owner == "pybind11::module") && name == "def") {
      const auto python_name = first_string(call->getArg(0));
      if (!python_name) return;
      binding.python_name = *python_name;
      binding.targets = binding_targets(call->getNumArgs() > 1 ? call->getArg(1) : nullptr);
    } else if (owner == "pybind11::class_" && name.starts_with("def")) {
      const auto* binder = dyn_cast<ClassTemplateSpecializationDecl>(method->getParent());
      const auto class_python_name = class_name(call->getImplicitObjectArgument());
      if (binder == nullptr || !class_python_name) return;
      const auto* init = dyn_cast<CallExpr>(call->getArg(0)->IgnoreImplicit()->IgnoreParenImpCasts());
      const FunctionDecl* init_callee = init != nullptr ? init->getDirectCallee() : nullptr;
      if (init_callee != nullptr && init_callee->getName() == "init") {
        binding.python_name = *class_python_name + ".__init__";
        binding.targets = constructor_targets(init, binder);
      } else {
        const auto member = first_string(call->getArg(0));
        if (!member) return;
        binding.python_name = *class_python_name + "." + *member;
        if (name == "def_readwrite" || name == "def_readonly") return;  // data members run no code
        for (unsigned i = 1; i < call->getNumArgs() && i <= 2; ++i) {
          if (i == 2 && !name.starts_with("def_property")) break;
          if (name.starts_with("def_property_readonly") && i == 2) break;
          for (std::string& target : binding_targets(call->getArg(i))) binding.targets.push_back(std::move(target));
        }
      }
    } else if (owner == "torch::Library" && (name == "def" || name == "impl")) {
      const auto schema = first_string(call->getArg(0));
      if (!schema) return;
      binding.source = PendingBinding::Source::torch_library;
      binding.implementation = name == "impl";
      binding.python_name = op_name_from_schema(*schema);
      if (call->getNumArgs() > 1) {
        binding.targets = binding_targets(call->getArg(1));
        binding.dispatch_key = first_enumerator(call->getArg(1), "DispatchKey");
      }
    } else {
      return;
    }
    pending_bindings_.push_back(std::move(binding));
  }

  void expand_virtual_calls() {
    for (const PendingVirtualCall& call : virtual_calls_) {
      std::vector<const CXXMethodDecl*> work{call.method};
      std::set<const CXXMethodDecl*> seen;
      while (!work.empty()) {
        const CXXMethodDecl* method = work.back();
        work.pop_back();
        const auto found = overriders_.find(method->getCanonicalDecl());
        if (found == overriders_.end()) continue;
        for (const CXXMethodDecl* overrider : found->second) {
          if (!seen.insert(overrider->getCanonicalDecl()).second) continue;
          ensure_symbol(overrider);
          add_edge(call.from, function_id(overrider), EdgeKind::virtual_call, call.file, call.line);
          work.push_back(overrider);
        }
      }
    }
  }

  /// The Python module a pybind11 registration function fills: its own PYBIND11_MODULE name, or
  /// that of the module function calling it (helpers that receive the module).
  std::string pybind11_module(const FunctionDecl* registration) {
    if (auto module = module_of(registration)) return *module;
    const std::string& helper = function_id(registration);
    for (const Edge& edge : facts_.edges) {
      if (edge.to != helper || edge.kind != EdgeKind::call) continue;
      const auto found = pybind11_modules_.find(edge.from);
      if (found != pybind11_modules_.end()) return found->second;
    }
    return "";
  }

  /// The module name of a PYBIND11_MODULE function (pybind11_init_<name>), nothing for others.
  static std::optional<std::string> module_of(const FunctionDecl* function) {
    constexpr llvm::StringLiteral prefix = "pybind11_init_";
    if (function->getIdentifier() == nullptr || !function->getName().starts_with(prefix)) return std::nullopt;
    return function->getName().substr(prefix.size()).str();
  }

  void resolve_bindings() {
    for (const PendingBinding& pending : pending_bindings_) {
      Binding binding;
      EdgeKind kind = EdgeKind::binding;
      if (pending.source == PendingBinding::Source::pybind11) {
        binding.extension_module = pybind11_module(pending.registration);
      } else {
        const auto found = library_inits_.find(pending.registration->getCanonicalDecl());
        if (found != library_inits_.end()) {
          binding.extension_module = "torch.ops." + found->second.first;
          binding.dispatch_key = found->second.second;
        }
        if (!pending.dispatch_key.empty()) binding.dispatch_key = pending.dispatch_key;
        if (pending.implementation) kind = EdgeKind::dispatch_registration;
      }
      binding.python_name = pending.python_name;
      binding.file = pending.file;
      binding.line = pending.line;
      const std::string id =
          "binding:" + (binding.extension_module.empty() ? std::string("?") : binding.extension_module) + "." +
          binding.python_name;
      if (symbol_ids_.insert(id).second) {
        push_symbol(id, id.substr(8), Language::cpp, SymbolKind::binding, pending.file, pending.line, pending.last_line,
                    pending.hash);
        add_span(pending.entry, id);
      }
      if (pending.targets.empty()) facts_.bindings.push_back(binding);
      for (const std::string& target : pending.targets) {
        Binding bound = binding;
        bound.target = target;
        add_edge(id, target, kind, pending.file, pending.line);
        facts_.bindings.push_back(std::move(bound));
      }
    }
  }

  // Declarations outside function bodies: each becomes a symbol with its own range and token
  // hash, and code using it gets a `uses` edge, so a changed type, constant, prototype or macro
  // reaches its users instead of every unit that includes its file.

  /// Where one symbol lies in one file, for attributing macro expansions and finding the tokens
  /// that no symbol holds.
  struct Span {
    FileID file;
    unsigned begin = 0, end = 0;
    std::string id;
  };

  std::optional<Span> span_of(SourceRange range, const std::string& id) {
    if (range.isInvalid()) return std::nullopt;
    const CharSourceRange expanded = sources_.getExpansionRange(range);
    const auto [file, begin] = sources_.getDecomposedLoc(expanded.getBegin());
    const auto [end_file, end] = sources_.getDecomposedLoc(expanded.getEnd());
    if (file != end_file || end < begin) return std::nullopt;
    return Span{file, begin, end, id};
  }

  void add_span(SourceRange range, const std::string& id) {
    if (auto span = span_of(range, id)) spans_.push_back(std::move(*span));
  }

  /// `range` widened to the attributes written before the declaration (`[[nodiscard]] int f();`),
  /// which Clang leaves out of a declaration's own range.
  SourceRange with_attributes(const Decl* declaration, SourceRange range) {
    for (const Attr* attribute : declaration->attrs()) {
      if (attribute->isImplicit() || attribute->getRange().isInvalid()) continue;
      const SourceLocation begin = sources_.getExpansionLoc(attribute->getRange().getBegin());
      if (sources_.getFileID(begin) == sources_.getFileID(sources_.getExpansionLoc(range.getBegin())) &&
          sources_.isBeforeInTranslationUnit(begin, sources_.getExpansionLoc(range.getBegin())))
        range.setBegin(begin);
    }
    return SourceRange(line_start_before(range.getBegin()), range.getEnd());
  }

  /// `range` with the `;` that ends the declaration, which Clang leaves out of its range: adding a
  /// declaration must not add a token to the file's own symbol.
  SourceRange with_semicolon(SourceRange range) {
    const SourceLocation end = sources_.getExpansionRange(range).getEnd();
    std::optional<Token> next = Lexer::findNextToken(end, sources_, context_.getLangOpts());
    if (next && next->is(tok::semi) && sources_.getFileID(next->getLocation()) == sources_.getFileID(end))
      return SourceRange(range.getBegin(), next->getLocation());
    return range;
  }

  /// `location`, or the start of its line when only an attribute's brackets or the `template` of
  /// an explicit instantiation precede it there (Clang's ranges start after them).
  SourceLocation line_start_before(SourceLocation location) {
    const SourceLocation at = sources_.getExpansionLoc(location);
    const auto [file, offset] = sources_.getDecomposedLoc(at);
    bool invalid = false;
    const llvm::StringRef buffer = sources_.getBufferData(file, &invalid);
    if (invalid || offset > buffer.size()) return location;
    const std::size_t line = buffer.rfind('\n', offset == 0 ? 0 : offset - 1);
    const std::size_t start = line == llvm::StringRef::npos ? 0 : line + 1;
    const llvm::StringRef before = buffer.slice(start, offset).ltrim();
    if (!before.starts_with("[[") && !before.starts_with("__attribute__") && !before.starts_with("template")) return location;
    return at.getLocWithOffset(-static_cast<int>(before.size()));
  }

  static bool at_file_scope(const Decl* declaration) {
    return declaration->getLexicalDeclContext()->getRedeclContext()->isFileContext();
  }

  /// Declarations that are symbols of their own when written at file scope.
  static bool declares_symbol(const Decl* declaration) {
    if (const auto* tag = dyn_cast<TagDecl>(declaration)) return tag->isThisDeclarationADefinition();
    if (const auto* variable = dyn_cast<VarDecl>(declaration)) return !isa<ParmVarDecl>(variable);
    return isa<TypedefNameDecl>(declaration);
  }

  /// The file-scope declaration whose symbol stands for `declaration`: a template's pattern for
  /// its instantiations, the record or enum for its members, nothing for local declarations.
  const Decl* owner_of(const Decl* declaration) {
    const Decl* d = declaration;
    for (int depth = 0; d != nullptr && depth < 16; ++depth) {
      if (const auto* templated = dyn_cast<TemplateDecl>(d)) {
        d = templated->getTemplatedDecl();
        continue;
      }
      if (const auto* specialization = dyn_cast<ClassTemplateSpecializationDecl>(d);
          specialization != nullptr && !specialization->isExplicitSpecialization()) {
        const auto pattern = specialization->getSpecializedTemplateOrPartial();
        if (auto* partial = pattern.dyn_cast<ClassTemplatePartialSpecializationDecl*>()) d = partial;
        else d = pattern.get<ClassTemplateDecl*>()->getTemplatedDecl();
        continue;
      }
      if (const auto* record = dyn_cast<CXXRecordDecl>(d))
        if (const CXXRecordDecl* from = record->getInstantiatedFromMemberClass()) {
          d = from;
          continue;
        }
      if (const auto* variable = dyn_cast<VarDecl>(d))
        if (const VarDecl* from = variable->getInstantiatedFromStaticDataMember()) {
          d = from;
          continue;
        }
      if (const auto* tag = dyn_cast<TagDecl>(d)) {
        d = tag->getDefinition();
        if (d == nullptr) return nullptr;  // an opaque type: only a pointer to it is used
      }
      if (!in_repository(d)) return nullptr;
      if (declares_symbol(d) && at_file_scope(d)) return d;
      const auto* parent = dyn_cast<Decl>(d->getDeclContext());
      if (parent == nullptr || isa<TranslationUnitDecl, NamespaceDecl, LinkageSpecDecl, FunctionDecl>(parent))
        return nullptr;
      d = parent;
    }
    return nullptr;
  }

  /// "cpp-type:ns::Foo", "cpp-alias:ns::Alias", "cpp-var:ns::kLimit"; names with internal linkage in
  /// the unit itself carry its path, anonymous types the name of their first member.
  std::string declaration_id(const Decl* declaration) {
    const auto* named = cast<NamedDecl>(declaration);
    std::string id = isa<TagDecl>(named) ? "cpp-type:" : isa<TypedefNameDecl>(named) ? "cpp-alias:" : "cpp-var:";
    llvm::raw_string_ostream stream(id);
    const bool internal = isa<VarDecl>(named) ? !named->isExternallyVisible() : named->isInAnonymousNamespace();
    if (internal) {
      const std::string* file = files_.relative(named->getLocation());
      if (file != nullptr && *file == target_.main_file) stream << *file << "::";
    }
    const auto* tag = dyn_cast<TagDecl>(named);
    if (tag != nullptr && tag->getIdentifier() == nullptr) {
      if (const TypedefNameDecl* alias = tag->getTypedefNameForAnonDecl()) {
        alias->printQualifiedName(stream, policy_);
      } else {
        stream << "(anonymous)";
        if (const auto* enumeration = dyn_cast<EnumDecl>(tag); enumeration && !enumeration->enumerators().empty())
          stream << "::" << enumeration->enumerators().begin()->getName();
        if (const auto* record = dyn_cast<RecordDecl>(tag); record && !record->fields().empty())
          stream << "::" << record->fields().begin()->getName();
      }
      return stream.str();
    }
    named->printQualifiedName(stream, policy_);
    if (const auto* specialization = dyn_cast<ClassTemplateSpecializationDecl>(named)) {
      std::vector<std::string> texts;
      for (const TemplateArgument& argument : specialization->getTemplateArgs().asArray())
        append_template_argument(argument, texts);
      stream << '<';
      for (std::size_t i = 0; i < texts.size(); ++i) stream << (i ? ", " : "") << texts[i];
      stream << '>';
    }
    return stream.str();
  }

  /// Appends a symbol of the unit's facts (its id already taken in symbol_ids_).
  void push_symbol(std::string id, std::string name, Language language, SymbolKind kind, std::string file, int first,
                   int last, std::uint64_t hash) {
    Symbol symbol;
    symbol.id = std::move(id);
    symbol.qualified_name = std::move(name);
    symbol.language = language;
    symbol.kind = kind;
    symbol.file = std::move(file);
    symbol.first_line = first;
    symbol.last_line = last;
    symbol.body_hash = hash;
    facts_.symbols.push_back(std::move(symbol));
  }

  static Language language_of(const std::string& file) {
    return file.ends_with(".cu") || file.ends_with(".cuh") ? Language::cuda : Language::cpp;
  }

  /// Emits a declaration symbol once; false when its range is not in one repository file.
  bool emit_declaration(const std::string& id, std::string display, SourceRange range,
                        const std::vector<std::pair<unsigned, unsigned>>& holes = {}) {
    if (symbol_ids_.contains(id)) return true;
    const std::string* file = files_.relative(range.getBegin());
    if (file == nullptr || range.isInvalid()) return false;
    range = with_semicolon(range);
    symbol_ids_.insert(id);
    push_symbol(id, std::move(display), language_of(*file), SymbolKind::declaration, *file,
                static_cast<int>(sources_.getExpansionLineNumber(range.getBegin())),
                static_cast<int>(sources_.getExpansionLineNumber(sources_.getExpansionRange(range).getEnd())),
                token_hash(range, holes));
    add_span(range, id);
    return true;
  }

  /// The symbol of a file-scope declaration being traversed (its users attribute to it), or
  /// nothing for declarations that belong to what holds them.
  std::optional<std::string> add_declaration_symbol(Decl* declaration) {
    if (auto* function = dyn_cast<FunctionDecl>(declaration)) return add_prototype_symbol(function);
    if (!declares_symbol(declaration) || !at_file_scope(declaration)) return std::nullopt;
    if (const auto* specialization = dyn_cast<ClassTemplateSpecializationDecl>(declaration);
        specialization != nullptr && !specialization->isExplicitSpecialization())
      return std::nullopt;
    SourceRange range = with_attributes(declaration, declaration->getSourceRange());
    std::vector<std::pair<unsigned, unsigned>> holes;
    if (const auto* variable = dyn_cast<VarDecl>(declaration)) {
      if (variable->isThisDeclarationADefinition() == VarDecl::DeclarationOnly ||
          isa<VarTemplateSpecializationDecl>(variable))
        return std::nullopt;
      if (const VarTemplateDecl* pattern = variable->getDescribedVarTemplate()) range = pattern->getSourceRange();
    }
    if (const auto* alias = dyn_cast<TypeAliasDecl>(declaration))
      if (const TypeAliasTemplateDecl* pattern = alias->getDescribedAliasTemplate()) range = pattern->getSourceRange();
    if (const auto* record = dyn_cast<CXXRecordDecl>(declaration)) {
      if (const ClassTemplateDecl* pattern = record->getDescribedClassTemplate()) range = pattern->getSourceRange();
      // Member functions compare on their own; the record's hash is its layout and declarations.
      for (const Decl* member : record->decls()) {
        if (member->isImplicit() || !isa<FunctionDecl, FunctionTemplateDecl>(member)) continue;
        if (auto span = span_of(member->getSourceRange(), {})) holes.emplace_back(span->begin, span->end);
      }
    }
    const std::string id = declaration_id(declaration);
    if (!emit_declaration(id, id.substr(id.find(':') + 1), range, holes)) return std::nullopt;
    return id;
  }

  /// A function declared without its body (in a header, or a member declared in its class): the
  /// definition depends on what it says (default arguments, attributes, the signature itself).
  std::optional<std::string> add_prototype_symbol(const FunctionDecl* function) {
    if (function->doesThisDeclarationHaveABody() || function->isImplicit() || function->isTemplateInstantiation() ||
        function->getFriendObjectKind() != Decl::FOK_None || isLambdaCallOperator(function))
      return std::nullopt;
    SourceRange range = with_attributes(function, function->getSourceRange());
    if (const FunctionTemplateDecl* pattern = function->getDescribedFunctionTemplate()) range = pattern->getSourceRange();
    const std::string* file = files_.relative(range.getBegin());
    if (file == nullptr) return std::nullopt;
    const std::string target = function_id(function);
    const std::string id = "cpp-proto:" + target + "@" + *file;
    if (!emit_declaration(id, target.substr(target.find(':') + 1) + " [declaration]", range)) return std::nullopt;
    add_edge(target, id, EdgeKind::uses, function->getLocation());
    return id;
  }

  /// `template void f<float>(float*);`: the specialization exists because of that line.
  void add_instantiation_symbol(const FunctionDecl* function) {
    const TemplateSpecializationKind kind = function->getTemplateSpecializationKind();
    if (kind != TSK_ExplicitInstantiationDefinition && kind != TSK_ExplicitInstantiationDeclaration) return;
    const SourceLocation point = function->getPointOfInstantiation();
    const std::string* file = files_.relative(point);
    if (file == nullptr) return;
    const std::string& target = function_id(function);
    const std::string id = "cpp-inst:" + target + "@" + *file;
    if (symbol_ids_.contains(id)) return;
    if (emit_declaration(id, "template " + target.substr(target.find(':') + 1),
                         SourceRange(line_start_before(point), statement_end(point))))
      add_edge(target, id, EdgeKind::uses, point);
  }

  /// The `;` ending the statement that starts at `location` (or `location` when there is none).
  SourceLocation statement_end(SourceLocation location) {
    const SourceLocation start = sources_.getExpansionLoc(location);
    const auto [file, offset] = sources_.getDecomposedLoc(start);
    SourceLocation end = start;
    int budget = 4096;
    for_each_raw_token(file, offset, [&](const Token& token, unsigned, llvm::StringRef) {
      if (token.is(tok::semi)) end = token.getLocation();
      return !token.is(tok::semi) && --budget > 0;
    });
    return end;
  }

  /// Records that the current function or declaration uses `used` (by its symbol's id).
  void add_use(const Decl* used, SourceLocation location) {
    const std::string* user = current_user();
    if (user == nullptr || !in_repository(used)) return;
    // A static data member is defined where its class is not always visible: its users depend on
    // the definition (by name) and on the class declaring it.
    if (const auto* variable = dyn_cast<VarDecl>(used); variable != nullptr && variable->isStaticDataMember()) {
      const VarDecl* member = variable->getInstantiatedFromStaticDataMember();
      if (member == nullptr) member = variable;
      std::string id = "cpp-var:";
      llvm::raw_string_ostream stream(id);
      member->printQualifiedName(stream, policy_);
      add_use_edge(*user, stream.str(), location);
    }
    const Decl* owner = owner_of(used);
    if (owner == nullptr) return;
    add_use_edge(*user, declaration_id(owner), location);
  }

  void add_use_edge(const std::string& user, const std::string& used, SourceLocation location) {
    if (user == used || !use_keys_.emplace(user, used).second) return;
    add_edge(user, used, EdgeKind::uses, location);
  }

  /// Macro symbols, and a `uses` edge from the innermost symbol around each expansion.
  void add_macro_symbols() {
    for (const MacroDefinition& macro : macros_.definitions) {
      if (!symbol_ids_.insert(macro.id).second) continue;
      push_symbol(macro.id, macro.name + " [macro]", language_of(macro.file), SymbolKind::declaration, macro.file,
                  macro.first_line, macro.last_line, macro.hash);
      macro_lines_[macro.file].emplace_back(macro.first_line, macro.last_line);
    }
    std::unordered_map<unsigned, std::vector<const Span*>> by_file;
    for (const Span& span : spans_) by_file[span.file.getHashValue()].push_back(&span);
    for (const auto& [index, location] : macros_.expansions) {
      const auto [file, offset] = sources_.getDecomposedLoc(location);
      const auto found = by_file.find(file.getHashValue());
      if (found == by_file.end()) continue;
      unsigned best = std::numeric_limits<unsigned>::max();
      for (const Span* span : found->second)
        if (span->begin <= offset && offset <= span->end) best = std::min(best, span->end - span->begin);
      if (best == std::numeric_limits<unsigned>::max()) continue;  // at file scope, outside every symbol
      for (const Span* span : found->second)
        if (span->begin <= offset && offset <= span->end && span->end - span->begin == best)
          add_use_edge(span->id, macros_.definitions[index].id, location);
    }
  }

  /// One module symbol per repository file: the tokens no other symbol holds (includes,
  /// conditional compilation, namespaces, forward declarations), so a comment or layout edit there
  /// changes nothing and any other edit is seen.
  ///
  /// A repository macro named among those tokens (in an `#if`, or in code of a branch the guessed
  /// flags leave inactive, which the real build may compile) gets a `uses` edge from the file's
  /// symbol: its expansions there were never seen, so a change to it widens to the file's units.
  void add_file_symbols() {
    std::unordered_map<std::string, std::vector<const std::string*>> macro_ids;
    for (const MacroDefinition& macro : macros_.definitions) macro_ids[macro.name].push_back(&macro.id);
    std::unordered_map<unsigned, std::vector<std::pair<unsigned, unsigned>>> holes;
    for (const Span& span : spans_) holes[span.file.getHashValue()].emplace_back(span.begin, span.end);
    for (auto entry = sources_.fileinfo_begin(); entry != sources_.fileinfo_end(); ++entry) {
      const auto relative = files_.relative_path(entry->first.getName());
      if (!relative) continue;
      const FileID file = sources_.translateFile(entry->first);
      if (file.isInvalid()) continue;
      const std::string id = "cpp-file:" + *relative;
      if (!symbol_ids_.insert(id).second) continue;
      auto& own = holes[file.getHashValue()];
      std::sort(own.begin(), own.end());
      const auto& macro_lines = macro_lines_[*relative];
      std::string joined, without_includes;
      bool in_include = false, pending_hash = false;
      std::size_t next_hole = 0;
      const bool read = for_each_raw_token(file, 0, [&](const Token& token, unsigned offset, llvm::StringRef text) {
        while (next_hole < own.size() && own[next_hole].second < offset) ++next_hole;
        for (std::size_t h = next_hole; h < own.size() && own[h].first <= offset; ++h)
          if (offset <= own[h].second) return true;  // inside a symbol
        if (!macro_lines.empty()) {
          const int line = static_cast<int>(sources_.getLineNumber(file, offset));
          if (std::any_of(macro_lines.begin(), macro_lines.end(),
                          [&](const auto& lines) { return line >= lines.first && line <= lines.second; }))
            return true;  // a #define: the macro's own symbol
        }
        joined.append(text.data(), text.size());
        joined.push_back('\x1f');
        // The same tokens without `#include` lines: where only this one differs, the file changed
        // its includes alone (planner/include_changes.h maps those).
        if (token.isAtStartOfLine()) {
          in_include = false;
          if (pending_hash) without_includes += "#\x1f";
          pending_hash = false;
        }
        if (pending_hash) {
          pending_hash = false;
          if (token.is(tok::raw_identifier) && (text == "include" || text == "include_next" || text == "import"))
            in_include = true;
          else
            without_includes += "#\x1f";
        }
        if (!in_include) {
          if (token.is(tok::hash) && token.isAtStartOfLine()) {
            pending_hash = true;
          } else {
            without_includes.append(text.data(), text.size());
            without_includes.push_back('\x1f');
          }
        }
        if (token.is(tok::raw_identifier))
          if (auto found = macro_ids.find(text.str()); found != macro_ids.end())
            for (const std::string* macro : found->second) add_use_edge(id, *macro, token.getLocation());
        return true;
      });
      if (!read) continue;
      const unsigned size = sources_.getBufferData(file).size();
      push_symbol(id, *relative, language_of(*relative), SymbolKind::module, *relative, 1,
                  std::max(1, static_cast<int>(sources_.getLineNumber(file, size))), util::hash64(joined));
      if (pending_hash) without_includes += "#\x1f";
      facts_.symbols.back().doc_hash = util::hash64("file-level tokens but includes\x1f" + without_includes);
    }
  }

  void collect_headers() {
    if (target_.headers == nullptr) return;
    for (auto entry = sources_.fileinfo_begin(); entry != sources_.fileinfo_end(); ++entry) {
      const auto relative = files_.relative_path(entry->first.getName());
      if (!relative || *relative == target_.main_file) continue;
      const auto buffer = sources_.getMemoryBufferForFileOrNone(entry->first);
      (*target_.headers)[*relative] = buffer ? util::content_hash(buffer->getBuffer()) : std::string();
    }
  }

  ASTContext& context_;
  SourceManager& sources_;
  PrintingPolicy policy_;
  RepositoryFiles& files_;
  const MacroFacts& macros_;
  const ExtractionTarget& target_;
  FileFacts& facts_;
  std::vector<const FunctionDecl*> functions_;
  std::vector<std::string> declarations_;  ///< file-scope declarations being traversed, innermost last
  std::vector<Span> spans_;
  std::set<std::pair<std::string, std::string>> use_keys_;
  std::unordered_map<std::string, std::vector<std::pair<int, int>>> macro_lines_;  ///< file -> #define lines
  std::unordered_map<const FunctionDecl*, std::string> ids_;  ///< node-based: references stay valid
  std::set<std::string> symbol_ids_;
  std::set<std::tuple<std::string, std::string, int, std::string, int>> edge_keys_;
  llvm::DenseSet<const DeclRefExpr*> callee_references_;
  llvm::DenseMap<const CXXMethodDecl*, std::vector<const CXXMethodDecl*>> overriders_;
  std::vector<PendingVirtualCall> virtual_calls_;
  llvm::DenseMap<const FunctionDecl*, std::pair<std::string, std::string>> library_inits_;
  std::vector<PendingBinding> pending_bindings_;
  std::unordered_map<std::string, std::string> pybind11_modules_;  ///< function id -> module name
};

/// Runs the visitor once the translation unit is complete (templates instantiated).
class FactConsumer : public ASTConsumer {
 public:
  FactConsumer(CompilerInstance& compiler, ExtractionTarget target)
      : target_(std::move(target)),
        files_(compiler.getSourceManager(), target_.repository),
        macros_(std::make_shared<MacroFacts>()) {
    record_macros(compiler, files_, macros_);
  }

  void HandleTranslationUnit(ASTContext& context) override {
    FactVisitor visitor(context, target_, files_, *macros_);
    // The unit's own top-level declarations only: those of a precompiled preamble (standard
    // headers, never repository code) would be deserialized just to be skipped.
    for (Decl* declaration : context.getTranslationUnitDecl()->noload_decls()) visitor.TraverseDecl(declaration);
    visitor.finish();
  }

 private:
  ExtractionTarget target_;
  RepositoryFiles files_;
  std::shared_ptr<MacroFacts> macros_;
};

}  // namespace

std::unique_ptr<clang::ASTConsumer> make_fact_consumer(clang::CompilerInstance& compiler, ExtractionTarget target) {
  return std::make_unique<FactConsumer>(compiler, std::move(target));
}

}  // namespace fastci::frontend::cpp
