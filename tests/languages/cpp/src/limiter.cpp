#include <atomic>

namespace shop {

// A capitals macro between `class` and the name (leveldb's `class LOCKABLE Mutex`).
class LOCKABLE Till {
 public:
  void Open() { open_ = true; }

 private:
  bool open_ = false;
};

// A conditional inside a constructor's initializer list: every class after it is read.
class Limiter {
 public:
  explicit Limiter(int max_acquires)
      :
#if !defined(NDEBUG)
        max_acquires_(max_acquires),
#endif
        allowed_(max_acquires) {
  }

  // A thread-safety annotation on a line of its own, before the body.
  bool Acquire()
      EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    return allowed_.fetch_sub(1) > 0;
  }

 private:
#if !defined(NDEBUG)
  const int max_acquires_;
#endif
  std::atomic<int> allowed_;
};

class Queue {
 public:
  Queue() = default;  // no code: no chunk
  Queue(const Queue&) = delete;
  void Push(int value) { last_ = value; }

 private:
  int last_ = 0;
};

// An attribute macro before the return type (glog's `static ATTRIBUTE_NOINLINE FileDescriptor OpenObjectFile(`):
// the grammar reads the type as a scope with a missing `::`, the function is still named by its own name.
static ATTRIBUTE_NOINLINE Queue
MakeQueue(int first) {
  Queue queue;
  queue.Push(first);
  return queue;
}

}  // namespace shop
