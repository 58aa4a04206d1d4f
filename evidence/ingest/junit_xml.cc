#include "evidence/ingest/junit_xml.h"

#include <expat.h>

#include <cctype>
#include <cerrno>
#include <optional>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

namespace fastci::evidence {

namespace {

/// Failure messages are kept for reports, not for forensics.
constexpr std::size_t kMaxMessage = 4000;
constexpr std::size_t kChunk = 1 << 16;

std::string_view attribute(const XML_Char** attributes, const char* name) {
  for (int i = 0; attributes[i]; i += 2) {
    if (std::strcmp(attributes[i], name) == 0) return attributes[i + 1];
  }
  return {};
}

bool has_attribute(const XML_Char** attributes, const char* name) {
  for (int i = 0; attributes[i]; i += 2) {
    if (std::strcmp(attributes[i], name) == 0) return true;
  }
  return false;
}

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

/// State of one parse: the open <testcase>, the run, and the first error.
class JunitParser {
 public:
  JunitParser(const std::filesystem::path& file, EvidenceSink& sink) : file_(file.string()), sink_(sink) {}

  util::Status parse(std::FILE* in) {
    std::unique_ptr<std::remove_pointer_t<XML_Parser>, decltype(&XML_ParserFree)> parser(XML_ParserCreate(nullptr),
                                                                                        XML_ParserFree);
    if (!parser) return util::Error{"out of memory creating the XML parser", file_, 0};
    parser_ = parser.get();
    XML_SetUserData(parser_, this);
    XML_SetElementHandler(parser_, &JunitParser::on_start, &JunitParser::on_end);
    XML_SetCharacterDataHandler(parser_, &JunitParser::on_text);
    std::vector<char> buffer(kChunk);
    while (true) {
      std::size_t read = std::fread(buffer.data(), 1, buffer.size(), in);
      bool last = read < buffer.size();
      if (last && std::ferror(in)) return util::Error{"read error", file_, 0};
      if (XML_Parse(parser_, buffer.data(), static_cast<int>(read), last) == XML_STATUS_ERROR) {
        if (error_) return *error_;
        return util::Error{std::string("malformed XML: ") + XML_ErrorString(XML_GetErrorCode(parser_)), file_,
                           static_cast<int>(XML_GetCurrentLineNumber(parser_))};
      }
      if (error_) return *error_;
      if (last) break;
    }
    if (!saw_root_) return util::Error{"not a JUnit XML report (no <testsuites> or <testsuite> element)", file_, 1};
    if (!run_started_) begin_run();
    return {};
  }

 private:
  static void on_start(void* self, const XML_Char* name, const XML_Char** attributes) {
    static_cast<JunitParser*>(self)->start(name, attributes);
  }
  static void on_end(void* self, const XML_Char* name) { static_cast<JunitParser*>(self)->end(name); }
  static void on_text(void* self, const XML_Char* text, int length) {
    auto* parser = static_cast<JunitParser*>(self);
    if (parser->collecting_ && parser->text_.size() < kMaxMessage) {
      parser->text_.append(text, static_cast<std::size_t>(std::min<int>(length, static_cast<int>(kMaxMessage))));
    }
  }

  int line() const { return static_cast<int>(XML_GetCurrentLineNumber(parser_)); }

  void fail(const std::string& message) {
    if (!error_) error_ = util::Error{message, file_, line()};
    XML_StopParser(parser_, XML_FALSE);
  }

  void start(std::string_view name, const XML_Char** attributes) {
    ++depth_;
    if (depth_ == 1) {
      if (name != "testsuites" && name != "testsuite") {
        fail("not a JUnit XML report: root element is <" + std::string(name) + ">, expected <testsuites> or <testsuite>");
        return;
      }
      saw_root_ = true;
    }
    if (name == "testsuite") {
      if (!run_started_) {
        run_.started_at = std::string(attribute(attributes, "timestamp"));
        run_.runner = std::string(attribute(attributes, "hostname"));
        begin_run();
      }
      return;
    }
    if (name == "testcase") {
      if (in_case_) {
        fail("<testcase> inside <testcase>");
        return;
      }
      start_case(attributes);
      return;
    }
    if (!in_case_) return;
    if (name == "failure" || name == "error" || name == "skipped") {
      std::string_view message = attribute(attributes, "message");
      std::string_view type = attribute(attributes, "type");
      if (name == "failure") {
        failed_ = true;
      } else if (name == "error") {
        errored_ = true;
      } else {
        skipped_ = true;
        if (type == "pytest.xfail") xfailed_ = true;
      }
      bool keep = name != "skipped" || (!failed_ && !errored_);
      if (keep && (case_.message.empty() || name != "skipped")) {
        if (!case_.message.empty() && name != "skipped") {
          // Several failures (GoogleTest writes one per failed assertion): keep them all, up to the limit.
          if (case_.message.size() < kMaxMessage) case_.message += "\n";
        } else {
          case_.message.clear();
        }
        if (!message.empty()) {
          append_message(message);
        } else {
          collecting_ = true;
          text_.clear();
        }
      }
    }
  }

  void end(std::string_view name) {
    --depth_;
    if (!in_case_) return;
    if (collecting_ && (name == "failure" || name == "error" || name == "skipped")) {
      append_message(text_);
      collecting_ = false;
    }
    if (name == "testcase") finish_case();
  }

  void append_message(std::string_view message) {
    std::size_t room = kMaxMessage > case_.message.size() ? kMaxMessage - case_.message.size() : 0;
    case_.message.append(message.substr(0, room));
  }

  void start_case(const XML_Char** attributes) {
    in_case_ = true;
    failed_ = errored_ = skipped_ = xfailed_ = false;
    case_ = TestEvidence{};
    case_line_ = line();
    std::string_view name = attribute(attributes, "name");
    std::string_view classname = attribute(attributes, "classname");
    std::string_view file = attribute(attributes, "file");
    // GoogleTest marks every case with status (run/notrun) and result; pytest never does.
    bool googletest = has_attribute(attributes, "status") || has_attribute(attributes, "result");
    if (name.empty()) {
      sink_.warn(Warning{file_, case_line_, "<testcase> without a name attribute; skipped"});
      in_case_ = false;
      skip_case_ = true;
      return;
    }
    skip_case_ = false;
    if (googletest) {
      case_.test_id = classname.empty() ? std::string(name) : std::string(classname) + "." + std::string(name);
      std::string_view status = attribute(attributes, "status");
      std::string_view result = attribute(attributes, "result");
      if (status == "notrun" || result == "suppressed" || result == "skipped") skipped_ = true;
    } else if (ends_with(file, ".py") && !classname.empty()) {
      // xunit1 gives the file: the classname's last parts after the module are classes.
      std::string module = std::string(file);
      std::string dotted = module.substr(0, module.size() - 3);
      for (char& c : dotted) {
        if (c == '/') c = '.';
      }
      std::string id = module;
      if (classname.size() > dotted.size() && classname.substr(0, dotted.size()) == dotted &&
          classname[dotted.size()] == '.') {
        id += "::";
        for (char c : classname.substr(dotted.size() + 1)) {
          if (c == '.') id += "::";
          else id += c;
        }
      }
      case_.test_id = id + "::" + std::string(name);
    } else {
      case_.test_id = pytest_node_id(classname, name);
    }
    std::string_view time = attribute(attributes, "time");
    if (!time.empty()) {
      std::string text(time);
      char* end = nullptr;
      double seconds = std::strtod(text.c_str(), &end);
      if (end != text.c_str() && seconds >= 0 && seconds < 1e9) {
        case_.duration_seconds = seconds;
      } else {
        sink_.warn(Warning{file_, case_line_, "testcase " + case_.test_id + ": bad time '" + text + "'"});
      }
    }
  }

  void finish_case() {
    in_case_ = false;
    if (skip_case_) return;
    if (failed_) {
      case_.outcome = Outcome::failed;
    } else if (errored_) {
      case_.outcome = Outcome::error;
    } else if (xfailed_) {
      case_.outcome = Outcome::xfailed;
    } else if (skipped_) {
      case_.outcome = Outcome::skipped;
    } else {
      case_.outcome = Outcome::passed;
    }
    if (!run_started_) begin_run();
    sink_.add_test(std::move(case_));
  }

  void begin_run() {
    run_started_ = true;
    run_.source_format = "junit";
    run_.source_file = file_;
    sink_.begin_run(run_);
  }

  std::string file_;
  EvidenceSink& sink_;
  XML_Parser parser_ = nullptr;
  std::optional<util::Error> error_;
  int depth_ = 0;
  bool saw_root_ = false;
  bool run_started_ = false;
  Run run_;
  bool in_case_ = false;
  bool skip_case_ = false;
  int case_line_ = 0;
  TestEvidence case_;
  bool failed_ = false, errored_ = false, skipped_ = false, xfailed_ = false;
  bool collecting_ = false;
  std::string text_;
};

}  // namespace

std::string pytest_node_id(std::string_view classname, std::string_view name) {
  // classname is the module path with dots, then the classes; classes start with an upper-case
  // letter (pytest collects "Test*" classes), modules by convention do not.
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (start <= classname.size()) {
    std::size_t dot = classname.find('.', start);
    if (dot == std::string_view::npos) dot = classname.size();
    if (dot > start) parts.push_back(classname.substr(start, dot - start));
    start = dot + 1;
  }
  std::size_t first_class = parts.size();
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (std::isupper(static_cast<unsigned char>(parts[i][0]))) {
      first_class = i;
      break;
    }
  }
  // A module-level test: the whole classname is the module.
  std::string id;
  for (std::size_t i = 0; i < first_class; ++i) {
    if (i) id += '/';
    id += parts[i];
  }
  if (!id.empty()) id += ".py";
  for (std::size_t i = first_class; i < parts.size(); ++i) {
    if (!id.empty()) id += "::";
    id += parts[i];
  }
  if (!id.empty()) id += "::";
  id += name;
  return id;
}

bool sniff_junit(std::string_view head, const std::filesystem::path&) {
  std::size_t position = 0;
  // Skip the XML declaration, comments and whitespace before the root element.
  while (position < head.size()) {
    position = head.find('<', position);
    if (position == std::string_view::npos) return false;
    std::string_view rest = head.substr(position);
    if (rest.substr(0, 2) == "<?" || rest.substr(0, 4) == "<!--" || rest.substr(0, 2) == "<!") {
      std::size_t close = head.find('>', position);
      if (close == std::string_view::npos) return false;
      position = close + 1;
      continue;
    }
    return rest.substr(0, 11) == "<testsuites" || rest.substr(0, 10) == "<testsuite";
  }
  return false;
}

util::Status read_junit(const std::filesystem::path& file, EvidenceSink& sink) {
  std::unique_ptr<std::FILE, decltype(&std::fclose)> in(std::fopen(file.c_str(), "rb"), std::fclose);
  if (!in) return util::Error{std::string("cannot open JUnit report: ") + std::strerror(errno), file.string(), 0};
  JunitParser parser(file, sink);
  return parser.parse(in.get());
}

}  // namespace fastci::evidence
