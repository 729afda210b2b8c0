"""The names the capability policy knows: what candidates may use freely, and what only when the
original already does.

Allow-lists first: standard headers by exact name, pure standard functions, types and macros,
pragmas and attributes. Then the capabilities a candidate may only keep, never add: process
control, files and streams, sockets, environment, dynamic loading, clocks and scheduling.
"""

from __future__ import annotations

import re


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# -- headers -------------------------------------------------------------------------------
C_HEADERS = _words("""
assert.h complex.h ctype.h errno.h fenv.h float.h inttypes.h iso646.h limits.h math.h
stdalign.h stdarg.h stdatomic.h stdbool.h stddef.h stdint.h stdlib.h stdnoreturn.h string.h
tgmath.h uchar.h wchar.h wctype.h stdio.h
""")
# C++ headers of pure facilities (no <fstream>, <filesystem>, <csignal>, <cstdio> is allowed
# for memory formatting; its stream functions are gated by name, as <chrono>'s clocks are).
CPP_HEADERS = _words("""
algorithm any array atomic barrier bit bitset cassert ccomplex cctype cerrno cfenv cfloat
charconv chrono cinttypes ciso646 climits cmath compare complex concepts cstdarg cstdbool cstddef
cstdint cstdio cstdlib cstring ctgmath cuchar cwchar cwctype deque exception execution expected
format forward_list functional initializer_list iomanip ios iosfwd iostream istream iterator
latch limits list map memory memory_resource mutex new numbers numeric optional ostream queue
random ranges ratio scoped_allocator semaphore set shared_mutex source_location span sstream
stack stdexcept stop_token streambuf string string_view syncstream system_error thread tuple
type_traits typeindex typeinfo unordered_map unordered_set utility valarray variant vector
version regex coroutine mdspan flat_map flat_set stdfloat
""")
# Vector intrinsics and OpenMP: hardware-aware and parallel rewrites need them.
EXTRA_HEADERS = _words("""
immintrin.h emmintrin.h xmmintrin.h pmmintrin.h tmmintrin.h smmintrin.h nmmintrin.h
avxintrin.h avx2intrin.h arm_neon.h omp.h
""")
STANDARD_HEADERS = C_HEADERS | CPP_HEADERS | EXTRA_HEADERS

# -- pure functions, types and constants (unqualified spellings) ---------------------------
_MATH = _words("""
sin cos tan asin acos atan atan2 sinh cosh tanh asinh acosh atanh exp exp2 expm1 log log10 log2
log1p logb ilogb pow sqrt cbrt hypot fabs ceil floor trunc round lround llround rint lrint
llrint nearbyint fmod remainder remquo fmin fmax fdim fma copysign nan nextafter nexttoward
frexp ldexp modf scalbn scalbln erf erfc tgamma lgamma
""")
# C library functions: real symbols, whose addresses a candidate must not take (an address in
# the C library is a step to any other function in it).
C_FUNCTIONS = (
    _MATH | frozenset(f + s for f in _MATH for s in ("f", "l")) | _words("""
isnan isinf isfinite isnormal signbit fpclassify isgreater isgreaterequal isless islessequal
islessgreater isunordered
memcpy memmove memset memcmp memchr strlen strnlen strcmp strncmp strcpy strncpy strcat strncat
strchr strrchr strstr strspn strcspn strpbrk strtok strtok_r strcoll strxfrm strdup strndup
stpcpy
malloc calloc realloc free aligned_alloc posix_memalign qsort bsearch abs labs llabs div ldiv
lldiv atoi atol atoll atof strtol strtoll strtoul strtoull strtod strtof strtold rand rand_r
isalpha isdigit isalnum isspace isupper islower isxdigit ispunct isprint isgraph iscntrl
isblank toupper tolower
sprintf snprintf vsprintf vsnprintf sscanf vsscanf
assert offsetof va_start va_arg va_end va_copy
"""))
PURE_FUNCTIONS = C_FUNCTIONS | _words("""
sort stable_sort partial_sort partial_sort_copy nth_element is_sorted is_sorted_until min max
minmax min_element max_element minmax_element swap iter_swap swap_ranges accumulate reduce
transform_reduce inner_product partial_sum inclusive_scan exclusive_scan adjacent_difference
iota fill fill_n copy copy_n copy_if copy_backward move move_backward transform generate
generate_n replace replace_if replace_copy remove_if remove_copy remove_copy_if unique
unique_copy reverse reverse_copy rotate rotate_copy shuffle find find_if find_if_not find_end
find_first_of adjacent_find count count_if mismatch equal is_permutation search search_n
lower_bound upper_bound equal_range binary_search merge inplace_merge includes set_union
set_intersection set_difference set_symmetric_difference push_heap pop_heap make_heap
sort_heap is_heap all_of any_of none_of for_each for_each_n clamp gcd lcm midpoint lerp
make_pair make_tuple tie get forward_as_tuple begin end cbegin cend rbegin rend size ssize
empty data distance advance next prev back_inserter front_inserter inserter make_move_iterator
make_unique make_shared to_string to_chars from_chars stoi stol stoll stoul stoull stof stod
stold popcount countl_zero countr_zero countl_one countr_one bit_width bit_ceil bit_floor
has_single_bit rotl rotr bit_cast forward declval as_const exchange launder
omp_get_thread_num omp_get_num_threads omp_get_max_threads omp_get_num_procs omp_in_parallel
omp_init_lock omp_destroy_lock omp_set_lock omp_unset_lock omp_test_lock
""")
PURE_TYPES = _words("""
size_t ssize_t ptrdiff_t intptr_t uintptr_t intmax_t uintmax_t max_align_t wchar_t char8_t
char16_t char32_t float_t double_t div_t ldiv_t lldiv_t va_list bool complex imaginary
vector string wstring u8string u16string u32string array deque list forward_list map set
multimap multiset unordered_map unordered_set unordered_multimap unordered_multiset pair tuple
queue priority_queue stack bitset string_view span optional variant function unique_ptr
shared_ptr weak_ptr numeric_limits less greater less_equal greater_equal plus minus multiplies
divides modulus negate hash equal_to not_equal_to iterator initializer_list atomic complex
valarray stringstream ostringstream istringstream basic_string allocator reference_wrapper
integral_constant true_type false_type enable_if is_same decay remove_reference
remove_cv conditional common_type
""")
# Calls spelled in capitals that are standard and pure (most capitals are constants).
PURE_MACRO_CALLS = re.compile(r"^(U?INT(8|16|32|64|MAX)_C|CMPLX[FL]?)$")
CONSTANT = re.compile(r"^[A-Z][A-Z0-9_]*$")
# Implementation-reserved names a candidate may still use: vector types and intrinsics, pure
# builtins, the compiler's keywords and predefined feature macros.
RESERVED_ALLOWED = _words("""
__restrict __restrict__ __inline __inline__ __const __signed__ __typeof__ __typeof
__alignof__ __extension__ __label__ __auto_type __int128 __int128_t __uint128_t __float128
__fp16 __bf16 __real__ __imag__ __func__ __FUNCTION__ __PRETTY_FUNCTION__ __LINE__
_Bool _Complex _Imaginary _Alignas _Alignof _Atomic _Static_assert _Generic _Noreturn
_Thread_local _Float16 _Float32 _Float64 _Float128 _OPENMP _WIN32 _WIN64 _MSC_VER _LP64
__builtin_expect __builtin_expect_with_probability __builtin_unreachable __builtin_assume
__builtin_assume_aligned __builtin_prefetch __builtin_constant_p __builtin_popcount
__builtin_popcountl __builtin_popcountll __builtin_clz __builtin_clzl __builtin_clzll
__builtin_ctz __builtin_ctzl __builtin_ctzll __builtin_ffs __builtin_ffsl __builtin_ffsll
__builtin_parity __builtin_parityl __builtin_parityll __builtin_clrsb __builtin_clrsbl
__builtin_clrsbll __builtin_bswap16 __builtin_bswap32 __builtin_bswap64 __builtin_memcpy
__builtin_memmove __builtin_memset __builtin_memcmp __builtin_strlen __builtin_add_overflow
__builtin_sub_overflow __builtin_mul_overflow __builtin_sqrt __builtin_sqrtf __builtin_fabs
__builtin_fabsf __builtin_fma __builtin_fmaf __builtin_inf __builtin_inff __builtin_huge_val
__builtin_huge_valf __builtin_nan __builtin_nanf __builtin_isnan __builtin_isinf
__builtin_isfinite __builtin_types_compatible_p __builtin_offsetof __builtin_choose_expr
__builtin_shuffle __builtin_shufflevector __builtin_convertvector __builtin_is_constant_evaluated
""")
RESERVED_PATTERNS = re.compile(
    r"^(__m(64|128|256|512)[dhi]?|__mmask\d+|__[A-Z0-9_]+__|__STDC\w*|__cplusplus|"
    r"_MM_[A-Z0-9_]+|_CMP_[A-Z0-9_]+)$")
# Predefined macros that reveal the build machine's paths or time: not needed, not allowed.
RESERVED_DENIED = _words("__FILE__ __BASE_FILE__ __FILE_NAME__ __TIMESTAMP__ __DATE__ __TIME__"
                         " __COUNTER__ __INCLUDE_LEVEL__")
# SIMD intrinsics (x86 and Arm): pure register arithmetic, except the few below.
INTRINSIC = re.compile(r"^(_mm\d*_\w+|_bit_scan_\w+|_(pdep|pext|bzhi|bextr|lzcnt|tzcnt|popcnt)"
                       r"_u(32|64)|v\w+q?_[a-z]\d+)$")
INTRINSIC_DENIED = _words("""
_mm_clflush _mm_clflushopt _mm_clwb _mm_monitor _mm_mwait _mm_setcsr _mm_getcsr _mm_pause
_mm_sfence _mm_lfence _mm_mfence
""")

# -- capabilities a candidate may only keep --------------------------------------------------
PROCESS = _words("""
fork vfork clone clone3 system popen pclose posix_spawn posix_spawnp setsid setpgid setpgrp
daemon kill killpg raise signal sigaction sigprocmask sigsuspend pthread_kill pthread_sigmask
exit _exit _Exit abort quick_exit at_quick_exit atexit on_exit terminate ptrace prctl wait
waitpid wait3 wait4 waitid unshare setns chroot chdir fchdir setuid seteuid setreuid setresuid
setgid setegid setregid setresgid nice setpriority sched_setaffinity sched_setscheduler
pthread_setaffinity_np alarm setitimer timer_create longjmp siglongjmp setjmp sigsetjmp
syscall personality mprotect mmap munmap mremap pkey_mprotect memfd_create
omp_set_num_threads omp_set_dynamic omp_set_nested omp_set_schedule setrlimit prlimit
""")
EXEC = re.compile(r"^(f?exec[lv]p?e?|execveat|__libc_\w+|_dl_\w+|_IO_\w+|__environ|_environ)$")
FILES = _words("""
fopen fopen64 freopen fdopen fclose tmpfile tmpnam tempnam mkstemp mkstemps mkostemp mkdtemp
open open64 openat openat2 creat creat64 close unlink unlinkat remove rename renameat renameat2
mkdir mkdirat rmdir link linkat symlink symlinkat readlink readlinkat chmod fchmod fchmodat
chown lchown fchown fchownat truncate ftruncate utime utimes futimes utimensat access faccessat
stat lstat fstat fstatat statx opendir fdopendir readdir closedir scandir nftw ftw shm_open
shm_unlink sendfile splice tee copy_file_range fsync fdatasync sync syncfs ioctl fcntl dup
dup2 dup3 pipe pipe2 mkfifo mknod write read pread pwrite readv writev preadv pwritev lseek
fileno flock lockf inotify_init fanotify_init io_uring_setup dprintf vdprintf
ofstream ifstream fstream filebuf basic_ofstream basic_ifstream basic_fstream basic_filebuf
filesystem
""")
NETWORK = _words("""
socket socketpair connect bind listen accept accept4 send sendto sendmsg sendmmsg recv
recvfrom recvmsg recvmmsg getaddrinfo freeaddrinfo gethostbyname gethostbyaddr getnameinfo
inet_pton inet_ntop inet_addr inet_aton setsockopt getsockopt shutdown getpeername
getsockname sockaddr sockaddr_in sockaddr_in6 sockaddr_un
""")
ENVIRONMENT = _words("""
getenv secure_getenv setenv unsetenv putenv clearenv environ confstr getlogin getpwnam
getpwuid getuid geteuid getgid getegid getpid getppid gethostname uname
program_invocation_name program_invocation_short_name
""")
DYNAMIC = _words("dlopen dlmopen dlsym dlvsym dlclose dladdr dlinfo dlerror dl_iterate_phdr")
CLOCKS = _words("""
clock time gettimeofday clock_gettime clock_settime settimeofday adjtime times getrusage
now rdtsc __rdtsc __rdtscp _rdtsc _rdrand16_step _rdrand32_step _rdrand64_step
sleep usleep nanosleep clock_nanosleep sched_yield pause random_device omp_get_wtime
omp_get_wtick this_thread sleep_for sleep_until
""")
# Threads of the candidate's own (OpenMP pragmas are the way to run in parallel): they can
# outlive the call and keep working after it returned.
THREADS = _words("""
thread jthread async pthread_create pthread_detach pthread_join thrd_create thrd_detach
thrd_join
""")
# Process-wide state the measuring process shares with the original: floating-point modes,
# locale, allocator and handler hooks, the random seed.
PROCESS_STATE = _words("""
fesetround fesetenv feupdateenv feholdexcept feraiseexcept feenableexcept fedisableexcept
fesetexceptflag fesetmode setlocale uselocale newlocale set_new_handler set_terminate
set_unexpected mallopt malloc_trim srand srandom seed48 srand48 _MM_SET_ROUNDING_MODE
_MM_SET_EXCEPTION_MASK _MM_SET_EXCEPTION_STATE _MM_SET_FLUSH_ZERO_MODE
_MM_SET_DENORMALS_ZERO_MODE
""")
STACK = _words("""
__builtin_frame_address __builtin_return_address __builtin_extract_return_addr
__builtin_apply __builtin_apply_args __builtin_return backtrace backtrace_symbols
""")

CATEGORIES: tuple[tuple[str, frozenset[str]], ...] = (
    ("process control", PROCESS), ("files and I/O", FILES), ("networking", NETWORK),
    ("environment and identity", ENVIRONMENT), ("dynamic loading", DYNAMIC),
    ("clocks and scheduling", CLOCKS), ("threads", THREADS), ("stack inspection", STACK),
    ("process-wide state", PROCESS_STATE),
)

# Standard streams: a candidate may use a stream the original uses, no other.
CHANNELS: dict[str, frozenset[str]] = {
    "stdout": _words("stdout cout wcout printf puts putchar putchar_unlocked vprintf wprintf "
                     "putwchar print println vprint_unicode vprint_nonunicode"),
    "stderr": _words("stderr cerr clog wcerr wclog perror"),
    "stdin": _words("stdin cin wcin scanf getchar getchar_unlocked gets vscanf wscanf "
                    "getwchar"),
}
CHANNEL_OF = {name: channel for channel, names in CHANNELS.items() for name in names}
STREAM_HANDLES = {"stdout": "stdout", "stderr": "stderr", "stdin": "stdin"}
# Functions that take the stream as an argument: allowed on a standard stream the original uses.
STREAM_FUNCTIONS = _words("""
fprintf vfprintf fputs fputc putc fwrite fflush fscanf vfscanf fgets fgetc getc fread setvbuf
setbuf ungetc putc_unlocked fputc_unlocked fwrite_unlocked fputs_unlocked getc_unlocked
fgetc_unlocked fread_unlocked feof ferror clearerr
""")
# Stream set-up a rewrite of stream code may add (stdio synchronisation, tie).
STREAM_SETUP = _words("sync_with_stdio tie ios ios_base")

# -- preprocessor and attributes ------------------------------------------------------------
PRAGMAS = re.compile(
    r"^(omp\b.*|GCC\s+(ivdep|unroll\s+\d+|optimize\b.*|target\b.*|push_options|pop_options|"
    r"diagnostic\b.*)|clang\s+loop\b.*|unroll(\s*\(?\d+\)?)?|nounroll|ivdep|loop\b.*|simd)\s*$")
ATTRIBUTES = _words("""
aligned always_inline noinline hot cold pure const flatten unused maybe_unused likely unlikely
vector_size may_alias nonnull returns_nonnull malloc alloc_size assume_aligned nodiscard
noreturn fallthrough deprecated target optimize simd packed no_unique_address assume
warn_unused_result leaf nothrow artificial gnu_inline __aligned__ __always_inline__
__noinline__ __hot__ __cold__ __pure__ __const__ __flatten__ __unused__ __vector_size__
__may_alias__ __target__ __optimize__ __nonnull__ __malloc__ __packed__ __noreturn__
""")

KEYWORDS = _words("""
alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t
char32_t class compl concept const consteval constexpr constinit const_cast continue co_await
co_return co_yield decltype default define defined delete do double dynamic_cast elif else
endif enum explicit export extern false final float for friend goto if ifdef ifndef include
inline int long mutable namespace new noexcept not not_eq nullptr operator or or_eq override
pragma private protected public register reinterpret_cast requires restrict return short signed
sizeof static static_assert static_cast struct switch template this thread_local throw true try
typedef typeid typename undef union unsigned using virtual void volatile wchar_t while xor
xor_eq NULL std int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t
__attribute__ __attribute __asm__ __asm __volatile__ __volatile _Pragma __declspec
""")
INT_TYPE = re.compile(r"^u?int(_fast|_least)?\d+_t$")
