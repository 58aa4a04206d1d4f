/* The growable array macros external scanners of tree-sitter 0.23 grammars use. */
#ifndef FASTCI_TREE_SITTER_ARRAY_COMPAT_H_
#define FASTCI_TREE_SITTER_ARRAY_COMPAT_H_

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>

#define Array(T)       \
  struct {             \
    T *contents;       \
    uint32_t size;     \
    uint32_t capacity; \
  }

#define array_init(self) ((self)->contents = NULL, (self)->size = 0, (self)->capacity = 0)
#define array_get(self, index) (assert((uint32_t)(index) < (self)->size), &(self)->contents[index])
#define array_back(self) array_get(self, (self)->size - 1)
#define array_pop(self) ((self)->contents[--(self)->size])
#define array_delete(self) (free((self)->contents), array_init(self))
#define array_reserve(self, new_capacity) \
  fastci_array_reserve((void **)&(self)->contents, &(self)->capacity, sizeof(*(self)->contents), (new_capacity))
#define array_push(self, element)                                                                      \
  (fastci_array_reserve((void **)&(self)->contents, &(self)->capacity, sizeof(*(self)->contents),      \
                        (self)->size + 1 > (self)->capacity * 2 ? (self)->size + 1 : (self)->capacity * 2 > 8 ? (self)->capacity * 2 : 8), \
   (self)->contents[(self)->size++] = (element))

/* Grows storage to at least `capacity` elements; aborts when memory runs out. */
static inline void fastci_array_reserve(void **contents, uint32_t *current, size_t element_size, uint32_t capacity) {
  if (capacity <= *current) return;
  void *grown = realloc(*contents, (size_t)capacity * element_size);
  if (grown == NULL) abort();
  *contents = grown;
  *current = capacity;
}

#endif
