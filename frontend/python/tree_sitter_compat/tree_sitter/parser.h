/* Bridges grammars generated for tree-sitter 0.23 (ABI 14) to the 0.20 parser.h that Debian ships:
 * the TSLanguage layout is the same at ABI 14, only a few generator macros and helpers are newer. */
#ifndef FASTCI_TREE_SITTER_PARSER_COMPAT_H_
#define FASTCI_TREE_SITTER_PARSER_COMPAT_H_

#include_next <tree_sitter/parser.h>

#ifndef TS_PUBLIC
#define TS_PUBLIC
#endif

/* 0.23 passes precedence and production id positionally. */
#undef REDUCE
#define REDUCE(symbol_name, children, precedence, prod_id) \
  {{                                                       \
    .reduce = {                                            \
      .type = TSParseActionTypeReduce,                     \
      .symbol = symbol_name,                               \
      .child_count = children,                             \
      .dynamic_precedence = precedence,                    \
      .production_id = prod_id                             \
    },                                                     \
  }}

/* An inclusive range of code points, sorted and disjoint within a set. */
typedef struct {
  int32_t start;
  int32_t end;
} TSCharacterRange;

/* Whether a code point lies in a sorted set of ranges (binary search). */
static inline bool set_contains(const TSCharacterRange *ranges, uint32_t length, int32_t lookahead) {
  uint32_t low = 0, high = length;
  while (low < high) {
    uint32_t middle = low + (high - low) / 2;
    if (lookahead < ranges[middle].start) high = middle;
    else if (lookahead > ranges[middle].end) low = middle + 1;
    else return true;
  }
  return false;
}

/* Pairs of (lookahead, next state). */
#define ADVANCE_MAP(...)                                             \
  {                                                                  \
    static const uint16_t map[] = {__VA_ARGS__};                     \
    for (uint32_t i = 0; i < sizeof(map) / sizeof(map[0]); i += 2) { \
      if (map[i] == lookahead) {                                     \
        state = map[i + 1];                                          \
        goto next_state;                                             \
      }                                                              \
    }                                                                \
  }

#endif
