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

GuardedMapping MapGuarded(size_t bytes, size_t alignment) {
  GuardedMapping mapping;
  const size_t page = PageSize();
  const size_t rounded = RoundUp(bytes == 0 ? 1 : bytes, alignment);
  const size_t open = RoundUp(rounded, page);
  const size_t trailing = RoundUp(kTrailingGuardBytes, page);
  const size_t total = page + open + trailing;
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
    munmap(reinterpret_cast<void*>(mapping.map_begin), mapping.map_end - mapping.map_begin);
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
  // Restore only our own handler's slot: if it already handed a fault on, that disposition stays.
  if (sigaction(SIGSEGV, nullptr, &current) == 0 && (current.sa_flags & SA_SIGINFO) != 0 &&
      current.sa_sigaction == OnSegv) {
    sigaction(SIGSEGV, &g_trap.previous, nullptr);
  }
  g_trap.installed = false;
}

bool RunTrapped(const std::function<void()>& body, FaultRecord* fault) {
  sigjmp_buf jump;
  if (sigsetjmp(jump, 1) != 0) {  // 1: the signal mask is restored, so SIGSEGV is not left blocked
    g_trap.jump = nullptr;
    *fault = g_trap.record;
    return false;
  }
  g_trap.jump = &jump;
  g_trap.thread = CurrentThread();
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
