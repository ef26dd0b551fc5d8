// Guard pages around GM buffers and UB, and the SIGSEGV trap that turns a kernel's raw-pointer access into
// one of them into a twin error.
//
// Accesses through twin APIs are checked call by call; a raw pointer (GlobalTensor::GetPhyAddr, a GM_ADDR
// argument, LocalTensor::GetPhyAddr) is not. Instead every GM buffer and each launch's UB is mapped so that
// its end abuts an inaccessible guard area (and an inaccessible page precedes it). Touching a guard raises
// SIGSEGV with si_code SEGV_ACCERR; while a core runs, the handler jumps back into the launcher, which
// names the kernel, the core and the access. Nothing is checked per element.
#include <csetjmp>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "core_state.h"

namespace opgen_twin {
namespace detail {
namespace {

// Inaccessible bytes after a buffer: far overruns land in the guard too, not in a neighbour.
constexpr size_t kTrailingGuardBytes = 64 * 1024;

size_t PageSize() {
  static const size_t page = [] {
    const long size = sysconf(_SC_PAGESIZE);
    return size > 0 ? static_cast<size_t>(size) : size_t{4096};
  }();
  return page;
}

size_t RoundUp(size_t value, size_t to) { return (value + to - 1) / to * to; }

// --- the trap ---

struct Trap {
  struct sigaction previous;
  bool installed = false;
  sigjmp_buf* jump = nullptr;
  volatile sig_atomic_t armed = 0;
  pid_t thread = 0;
  FaultRecord record;
};

Trap g_trap;

pid_t CurrentThread() { return static_cast<pid_t>(syscall(SYS_gettid)); }

// The same, remembered per thread (outside the signal handler, where TLS access is not async-signal-safe).
pid_t CachedThread() {
  static thread_local pid_t thread = CurrentThread();
  return thread;
}

// Read or write, from the CPU's fault report where the platform gives one.
FaultAccess DecodeAccess(const void* context) {
#if defined(__x86_64__)
  const auto* uc = static_cast<const ucontext_t*>(context);
  return (uc->uc_mcontext.gregs[REG_ERR] & 0x2) != 0 ? FaultAccess::kWrite : FaultAccess::kRead;
#elif defined(__aarch64__)
  // The kernel appends an esr_context record (magic "ESR\x01") to the signal frame; ESR.WnR is bit 6.
  const auto* uc = static_cast<const ucontext_t*>(context);
  const auto* cursor = reinterpret_cast<const uint8_t*>(uc->uc_mcontext.__reserved);
  const uint8_t* end = cursor + sizeof(uc->uc_mcontext.__reserved);
  while (cursor + 16 <= end) {
    uint32_t magic = 0;
    uint32_t size = 0;
    std::memcpy(&magic, cursor, sizeof(magic));
    std::memcpy(&size, cursor + 4, sizeof(size));
    if (magic == 0 || size < 8) break;
    if (magic == 0x45535201u) {
      uint64_t esr = 0;
      std::memcpy(&esr, cursor + 8, sizeof(esr));
      return (esr & (uint64_t{1} << 6)) != 0 ? FaultAccess::kWrite : FaultAccess::kRead;
    }
    cursor += size;
  }
  return FaultAccess::kUnknown;
#else
  (void)context;
  return FaultAccess::kUnknown;
#endif
}

void OnSegv(int signal, siginfo_t* info, void* context) {
  if (g_trap.armed != 0 && info != nullptr && info->si_code == SEGV_ACCERR && CurrentThread() == g_trap.thread) {
    g_trap.armed = 0;
    g_trap.record.address = reinterpret_cast<uintptr_t>(info->si_addr);
    g_trap.record.access = DecodeAccess(context);
    siglongjmp(*g_trap.jump, 1);
  }
  // Not an access to an inaccessible page by the running kernel (a null pointer, another thread, ...):
  // the previous disposition takes the fault, which recurs when this handler returns.
  sigaction(signal, &g_trap.previous, nullptr);
}

}  // namespace

namespace {

// --- a pool of released mappings ---
//
// Device memory, the tiling blob of every launch and each launch's UB are mapped and released again and
// again: mmap + mprotect + first-touch page faults + munmap cost far more than the work on a small tensor.
// Released mappings are kept as they are (guards in place, the buffer pages resident and accessible, like
// freed heap memory) and handed out again for a buffer of the same page-rounded size without a system call.

constexpr size_t kPoolMaxBytes = size_t{256} << 20;  // mapped bytes kept at most
constexpr size_t kPoolMaxEntries = 64;

struct PooledMapping {
  uintptr_t map_begin = 0;
  size_t open = 0;  // the accessible part when in use (page + open + trailing = the whole mapping)
  size_t total = 0;
};

struct MappingPool {
  std::mutex mutex;
  std::vector<PooledMapping> entries;  // most recently released last
  size_t bytes = 0;
};

MappingPool& Pool() {
  static MappingPool* pool = new MappingPool();  // never destroyed: usable from static destructors
  return *pool;
}

bool TakePooled(size_t open, size_t total, uintptr_t* map_begin) {
  MappingPool& pool = Pool();
  std::lock_guard<std::mutex> lock(pool.mutex);
  for (size_t i = pool.entries.size(); i-- > 0;) {
    if (pool.entries[i].open == open && pool.entries[i].total == total) {
      *map_begin = pool.entries[i].map_begin;
      pool.entries.erase(pool.entries.begin() + static_cast<std::ptrdiff_t>(i));
      pool.bytes -= total;
      return true;
    }
  }
  return false;
}

// True if the pool keeps the mapping.
bool KeepPooled(uintptr_t map_begin, size_t open, size_t total) {
  MappingPool& pool = Pool();
  std::lock_guard<std::mutex> lock(pool.mutex);
  if (total > kPoolMaxBytes) return false;
  // Make room by dropping the oldest entries.
  while (!pool.entries.empty() &&
         (pool.entries.size() >= kPoolMaxEntries || pool.bytes + total > kPoolMaxBytes)) {
    const PooledMapping oldest = pool.entries.front();
    pool.entries.erase(pool.entries.begin());
    pool.bytes -= oldest.total;
    munmap(reinterpret_cast<void*>(oldest.map_begin), oldest.total);
  }
  pool.entries.push_back(PooledMapping{map_begin, open, total});
  pool.bytes += total;
  return true;
}

}  // namespace

GuardedMapping MapGuarded(size_t bytes, size_t alignment) {
  GuardedMapping mapping;
  const size_t page = PageSize();
  const size_t rounded = RoundUp(bytes == 0 ? 1 : bytes, alignment);
  const size_t open = RoundUp(rounded, page);
  const size_t trailing = RoundUp(kTrailingGuardBytes, page);
  const size_t total = page + open + trailing;
  uintptr_t pooled = 0;
  if (TakePooled(open, total, &pooled)) {
    // Guards in place and the buffer still accessible: only the data pointer depends on the size.
    auto* open_begin = reinterpret_cast<uint8_t*>(pooled) + page;
    mapping.map_begin = pooled;
    mapping.map_end = pooled + total;
    mapping.data = open_begin + open - rounded;
    mapping.rounded = rounded;
    return mapping;
  }
  void* base = mmap(nullptr, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base != MAP_FAILED) {
    auto* open_begin = static_cast<uint8_t*>(base) + page;
    if (mprotect(open_begin, open, PROT_READ | PROT_WRITE) == 0) {
      mapping.map_begin = reinterpret_cast<uintptr_t>(base);
      mapping.map_end = mapping.map_begin + total;
      mapping.data = open_begin + open - rounded;  // its rounded end is the first guard byte
      mapping.rounded = rounded;
      return mapping;
    }
    munmap(base, total);
  }
  // Out of mappings (vm.max_map_count) or address space: an unguarded buffer still works.
  mapping.data = static_cast<uint8_t*>(std::aligned_alloc(alignment, rounded));
  mapping.rounded = mapping.data != nullptr ? rounded : 0;
  return mapping;
}

void UnmapGuarded(const GuardedMapping& mapping) {
  if (mapping.guarded()) {
    const size_t total = mapping.map_end - mapping.map_begin;
    const size_t open = total - PageSize() - RoundUp(kTrailingGuardBytes, PageSize());
    if (!KeepPooled(mapping.map_begin, open, total)) {
      munmap(reinterpret_cast<void*>(mapping.map_begin), total);
    }
  } else {
    std::free(mapping.data);
  }
}

void InstallFaultTrap() {
  struct sigaction action;
  std::memset(&action, 0, sizeof(action));
  action.sa_sigaction = OnSegv;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  g_trap.installed = sigaction(SIGSEGV, &action, &g_trap.previous) == 0;
}

void RemoveFaultTrap() {
  if (!g_trap.installed) return;
  struct sigaction current;
  // Restore only our own handler's slot: if it already handed a fault on (or someone replaced it), that
  // disposition stays. One system call in the usual case: swap, and put the other one back if need be.
  if (sigaction(SIGSEGV, &g_trap.previous, &current) == 0 &&
      !((current.sa_flags & SA_SIGINFO) != 0 && current.sa_sigaction == OnSegv)) {
    sigaction(SIGSEGV, &current, nullptr);
  }
  g_trap.installed = false;
}

bool RunTrapped(const std::function<void()>& body, FaultRecord* fault) {
  sigjmp_buf jump;
  // The mask is not saved (that is a system call per core run): after a fault SIGSEGV, which the kernel
  // blocked for the handler, is unblocked by hand.
  if (sigsetjmp(jump, 0) != 0) {
    sigset_t segv;
    sigemptyset(&segv);
    sigaddset(&segv, SIGSEGV);
    pthread_sigmask(SIG_UNBLOCK, &segv, nullptr);
    g_trap.jump = nullptr;
    *fault = g_trap.record;
    return false;
  }
  g_trap.jump = &jump;
  g_trap.thread = CachedThread();
  g_trap.record = FaultRecord();
  g_trap.armed = 1;
  try {
    body();
  } catch (...) {
    g_trap.armed = 0;
    g_trap.jump = nullptr;
    throw;
  }
  g_trap.armed = 0;
  g_trap.jump = nullptr;
  return true;
}

const char* FaultAccessName(FaultAccess access) {
  switch (access) {
    case FaultAccess::kRead: return "read";
    case FaultAccess::kWrite: return "write";
    case FaultAccess::kUnknown: break;
  }
  return "read/write";
}

}  // namespace detail
}  // namespace opgen_twin
