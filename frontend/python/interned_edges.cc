#include "frontend/python/interned_edges.h"

namespace fastci::frontend::python {

void InternedEdges::expand_into(std::vector<FileFacts>& files, const std::vector<const std::string*>& texts) {
  for (std::size_t f = 0; f < by_file_.size() && f < files.size(); ++f) {
    auto& edges = files[f].edges;
    // Sized once: growth by doubling would leave a third of the linked facts' largest part unused.
    edges.reserve(edges.size() + by_file_[f].size());
    for (const auto& e : by_file_[f]) edges.push_back({*texts[e.from], *texts[e.to], e.kind, std::string(), e.line});
    std::vector<InternedEdge>().swap(by_file_[f]);
  }
}

}  // namespace fastci::frontend::python
