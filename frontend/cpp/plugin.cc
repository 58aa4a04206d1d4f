#include "frontend/cpp/plugin.h"

/// The plugin's one exported symbol (plugin_exports.map keeps everything else local).
extern "C" const fastci::frontend::cpp::FrontendPlugin* fastci_cpp_frontend_plugin() {
  static const fastci::frontend::cpp::FrontendPlugin plugin{fastci::frontend::cpp::kFrontendPluginVersion,
                                                            &fastci::frontend::cpp::parse_translation_units};
  return &plugin;
}
