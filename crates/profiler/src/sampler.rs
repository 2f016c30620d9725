//! Timers, the signal handler and the collector thread.

use std::cell::{Cell, RefCell};
use std::ffi::c_void;
use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use libc::c_int;
use parking_lot::{Condvar, Mutex, RwLock};

/// Why a stack was sampled, as `system.trace_log.trace_type` names it (ClickHouse's
/// `Enum8` values).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TraceType {
    /// The wall-clock timer (`query_profiler_real_time_period_ns`).
    Real,
    /// The thread's CPU-time timer (`query_profiler_cpu_time_period_ns`).
    Cpu,
}

impl TraceType {
    pub fn name(self) -> &'static str {
        match self {
            TraceType::Real => "Real",
            TraceType::Cpu => "CPU",
        }
    }

    pub fn value(self) -> i8 {
        match self {
            TraceType::Real => 0,
            TraceType::Cpu => 1,
        }
    }
}

/// One sampled stack of a thread working for a query.
#[derive(Debug, Clone)]
pub struct Sample {
    pub trace_type: TraceType,
    /// The kernel's id of the thread (as `system.text_log.thread_id`).
    pub thread_id: u64,
    /// Nanoseconds since the epoch.
    pub timestamp_ns: u64,
    pub query_id: String,
    /// Instruction addresses, innermost first: the interrupted instruction, then return
    /// addresses.
    pub trace: Vec<u64>,
}

/// ClickHouse's signals for the two timers (SIGUSR1 real, SIGUSR2 CPU).
const REAL_SIGNAL: c_int = libc::SIGUSR1;
const CPU_SIGNAL: c_int = libc::SIGUSR2;

/// Frames kept per sample (ClickHouse keeps 45 after its own).
const MAX_FRAMES: usize = 64;
/// Frames of the handler itself (the unwinder, this module, the kernel's trampoline)
/// walked before the interrupted one, which are cut off.
const HANDLER_FRAMES: usize = 16;
const MAX_QUERY_ID: usize = 256;
/// length u32, kind u8, thread u64, time u64, query id (u16 + bytes), frames (u16 + u64s).
const HEADER: usize = 4 + 1 + 8 + 8;
const RECORD_CAPACITY: usize = HEADER + 2 + MAX_QUERY_ID + 2 + 8 * MAX_FRAMES;
// A pipe write of at most PIPE_BUF bytes is atomic: records never interleave.
const _: () = assert!(RECORD_CAPACITY <= libc::PIPE_BUF);

const KIND_FLUSH: u8 = 255;

/// Periods under a millisecond cost more than they tell (each sample unwinds the stack
/// with DWARF unwind tables); they are raised to it.
const MIN_PERIOD_NS: u64 = 1_000_000;

static PIPE_WRITE: AtomicI32 = AtomicI32::new(-1);
static DROPPED_SAMPLES: AtomicU64 = AtomicU64::new(0);

type Sink = Arc<dyn Fn(Sample) + Send + Sync>;
static SINK: RwLock<Option<Sink>> = RwLock::new(None);

/// Flush markers sent through the pipe and seen by the collector.
static FLUSH_SENT: AtomicU64 = AtomicU64::new(0);
static FLUSH_SEEN: Mutex<u64> = Mutex::new(0);
static FLUSH_DONE: Condvar = Condvar::new();

thread_local! {
    /// The kernel thread id, set when the thread's timers are created; read by the handler.
    static THREAD_ID: Cell<u64> = const { Cell::new(0) };
    static TIMERS: RefCell<Option<ThreadTimers>> = const { RefCell::new(None) };
}

/// Where samples go (the server's `system.trace_log`); the last one set wins.
pub fn set_sink(sink: impl Fn(Sample) + Send + Sync + 'static) {
    *SINK.write() = Some(Arc::new(sink));
}

/// Waits until every sample taken before the call reached the sink (`SYSTEM FLUSH LOGS`).
pub fn flush() {
    if PIPE_WRITE.load(Ordering::Acquire) < 0 {
        return;
    }
    let sequence = FLUSH_SENT.fetch_add(1, Ordering::SeqCst) + 1;
    let mut record = [0u8; HEADER + 4];
    let length = encode_header(&mut record, KIND_FLUSH, 0, sequence);
    let mut sent = false;
    // The pipe may be full of samples for a moment; the collector is draining it.
    for _ in 0..200 {
        if write_record(&record[..length + 4]) {
            sent = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    if !sent {
        return;
    }
    let mut seen = FLUSH_SEEN.lock();
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while *seen < sequence {
        if FLUSH_DONE.wait_until(&mut seen, deadline).timed_out() {
            break;
        }
    }
}

/// Samples the pipe had no room for.
pub fn dropped_samples() -> u64 {
    DROPPED_SAMPLES.load(Ordering::Relaxed)
}

/// Sets this thread's timer periods (0 stops a timer). Cheap when they do not change:
/// the timers are only reprogrammed when a period differs from the one they run with.
pub(crate) fn arm(real_period_ns: u64, cpu_period_ns: u64) {
    let clamp = |ns: u64| if ns == 0 { 0 } else { ns.max(MIN_PERIOD_NS) };
    let (real_period_ns, cpu_period_ns) = (clamp(real_period_ns), clamp(cpu_period_ns));
    let _ = TIMERS.try_with(|timers| {
        let mut timers = timers.borrow_mut();
        if let Some(t) = timers.as_ref() {
            if t.real.period_ns == real_period_ns && t.cpu.period_ns == cpu_period_ns {
                return;
            }
        } else if real_period_ns == 0 && cpu_period_ns == 0 {
            return;
        }
        if timers.is_none() {
            if !started() {
                return;
            }
            *timers = ThreadTimers::create();
        }
        if let Some(t) = timers.as_mut() {
            t.real.set_period(real_period_ns);
            t.cpu.set_period(cpu_period_ns);
        }
    });
}

/// Wall-clock periods at least this long stay armed while a runtime worker is parked.
const KEEP_ARMED_WHEN_PARKED_NS: u64 = 100_000_000;

/// A parked runtime worker runs nothing: its CPU timer stands still by itself, while its
/// wall-clock timer interrupts the wait (the handler drops samples taken outside a
/// query's work). A short period is stopped, and armed again by the next poll of a
/// query's work. A long one (the default is 1 s) stays armed: stopping and re-arming it
/// was two `timer_settime` calls per key-value lookup, for at most one spurious wake-up
/// per period.
pub(crate) fn parked() {
    let _ = TIMERS.try_with(|timers| {
        if let Some(t) = timers.borrow_mut().as_mut() {
            if t.real.period_ns < KEEP_ARMED_WHEN_PARKED_NS {
                t.real.set_period(0);
            }
        }
    });
}

/// One POSIX timer that signals this thread.
struct Timer {
    id: Option<libc::timer_t>,
    period_ns: u64,
}

impl Timer {
    fn create(clock: libc::clockid_t, signal: c_int, thread_id: libc::pid_t) -> Timer {
        // SAFETY: a zeroed sigevent is valid; the fields set are the ones SIGEV_THREAD_ID reads.
        let mut event: libc::sigevent = unsafe { std::mem::zeroed() };
        event.sigev_notify = libc::SIGEV_THREAD_ID;
        event.sigev_signo = signal;
        event.sigev_notify_thread_id = thread_id;
        let mut id: libc::timer_t = std::ptr::null_mut();
        // SAFETY: both pointers are valid for the call.
        let created = unsafe { libc::timer_create(clock, &mut event, &mut id) } == 0;
        Timer { id: created.then_some(id), period_ns: 0 }
    }

    fn set_period(&mut self, period_ns: u64) {
        if period_ns == self.period_ns {
            return;
        }
        let Some(id) = self.id else { return };
        let interval = libc::timespec { tv_sec: (period_ns / 1_000_000_000) as libc::time_t, tv_nsec: (period_ns % 1_000_000_000) as libc::c_long };
        let spec = libc::itimerspec { it_interval: interval, it_value: interval };
        // SAFETY: `id` is a live timer of this thread; `spec` is valid.
        if unsafe { libc::timer_settime(id, 0, &spec, std::ptr::null_mut()) } == 0 {
            self.period_ns = period_ns;
        }
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        if let Some(id) = self.id {
            // SAFETY: the timer was created by this thread and is deleted once.
            unsafe { libc::timer_delete(id) };
        }
    }
}

struct ThreadTimers {
    real: Timer,
    cpu: Timer,
}

impl ThreadTimers {
    fn create() -> Option<ThreadTimers> {
        // SAFETY: gettid has no preconditions.
        let thread_id = unsafe { libc::gettid() };
        THREAD_ID.with(|id| id.set(thread_id as u64));
        Some(ThreadTimers {
            real: Timer::create(libc::CLOCK_MONOTONIC, REAL_SIGNAL, thread_id),
            cpu: Timer::create(libc::CLOCK_THREAD_CPUTIME_ID, CPU_SIGNAL, thread_id),
        })
    }
}

/// Opens the pipe, installs the handlers and starts the collector, once per process.
fn started() -> bool {
    static STARTED: OnceLock<bool> = OnceLock::new();
    *STARTED.get_or_init(start)
}

fn start() -> bool {
    let mut fds = [0 as c_int; 2];
    // SAFETY: `fds` has room for the two descriptors.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return false;
    }
    let (read_fd, write_fd) = (fds[0], fds[1]);
    // SAFETY: plain fcntl calls on descriptors this function owns. The writer must never
    // block in a signal handler; a bigger pipe rides out a slow collector.
    unsafe {
        libc::fcntl(write_fd, libc::F_SETFL, libc::O_NONBLOCK);
        libc::fcntl(write_fd, libc::F_SETPIPE_SZ, 1 << 20);
    }
    let collector = std::thread::Builder::new().name("TraceCollector".into()).spawn(move || collect(read_fd));
    if collector.is_err() {
        return false;
    }
    PIPE_WRITE.store(write_fd, Ordering::Release);
    install_handler(REAL_SIGNAL) && install_handler(CPU_SIGNAL)
}

fn install_handler(signal: c_int) -> bool {
    // SAFETY: a zeroed sigaction is valid; the handler has the SA_SIGINFO signature.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_signal as *const () as usize;
        // SA_RESTART: a signal that lands in a blocking call (a read, a futex wait) must
        // not make it fail with EINTR.
        action.sa_flags = libc::SA_SIGINFO | libc::SA_RESTART;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(signal, &action, std::ptr::null_mut()) == 0
    }
}

/// Async-signal-safe: thread-locals without destructors, the stack walk, clock_gettime
/// and write(2); no locks, no allocation.
extern "C" fn on_signal(signal: c_int, _info: *mut libc::siginfo_t, context: *mut c_void) {
    // SAFETY: errno is thread-local; it is restored so the interrupted code sees its own.
    let saved_errno = unsafe { *libc::__errno_location() };
    let profile = crate::attribution::current_ptr();
    if !profile.is_null() {
        let kind = if signal == CPU_SIGNAL { TraceType::Cpu } else { TraceType::Real };
        // SAFETY: whoever set the pointer on this thread holds the profile alive until it
        // resets the pointer (see `attribution`), and the handler runs on this thread.
        let query_id = unsafe { (*profile).query_id().as_bytes() };
        sample(kind, query_id, interrupted_pc(context));
    }
    // SAFETY: as above.
    unsafe { *libc::__errno_location() = saved_errno };
}

fn interrupted_pc(context: *mut c_void) -> usize {
    if context.is_null() {
        return 0;
    }
    // SAFETY: the kernel passes a ucontext_t to SA_SIGINFO handlers.
    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    unsafe {
        (*(context as *const libc::ucontext_t)).uc_mcontext.gregs[libc::REG_RIP as usize] as usize
    }
    // SAFETY: as above.
    #[cfg(all(target_os = "linux", target_arch = "aarch64"))]
    unsafe {
        (*(context as *const libc::ucontext_t)).uc_mcontext.pc as usize
    }
    #[cfg(not(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64"))))]
    0
}

fn sample(kind: TraceType, query_id: &[u8], pc: usize) {
    let mut frames = [0u64; HANDLER_FRAMES + MAX_FRAMES];
    let mut walked = 0;
    // SAFETY: no other thread's stack is walked, and the walk does not lock (glibc's
    // _dl_find_object serves the unwinder's lookups). This is how pprof-rs samples too.
    unsafe {
        backtrace::trace_unsynchronized(|frame| {
            frames[walked] = frame.ip() as u64;
            walked += 1;
            walked < frames.len()
        });
    }
    // Cut the handler's own frames: keep from the interrupted instruction on.
    let first = frames[..walked.min(HANDLER_FRAMES + 1)].iter().position(|&ip| ip == pc as u64).unwrap_or(0);
    let frames = &frames[first..walked.min(first + MAX_FRAMES)];

    let mut record = [0u8; RECORD_CAPACITY];
    let mut now = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime is async-signal-safe; `now` is valid.
    unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut now) };
    let timestamp_ns = now.tv_sec as u64 * 1_000_000_000 + now.tv_nsec as u64;
    let thread_id = THREAD_ID.try_with(|id| id.get()).unwrap_or(0);
    let mut at = encode_header(&mut record, kind.value() as u8, thread_id, timestamp_ns);
    let query_id = &query_id[..query_id.len().min(MAX_QUERY_ID)];
    record[at..at + 2].copy_from_slice(&(query_id.len() as u16).to_ne_bytes());
    record[at + 2..at + 2 + query_id.len()].copy_from_slice(query_id);
    at += 2 + query_id.len();
    record[at..at + 2].copy_from_slice(&(frames.len() as u16).to_ne_bytes());
    at += 2;
    for ip in frames {
        record[at..at + 8].copy_from_slice(&ip.to_ne_bytes());
        at += 8;
    }
    record[..4].copy_from_slice(&(at as u32).to_ne_bytes());
    if !write_record(&record[..at]) {
        DROPPED_SAMPLES.fetch_add(1, Ordering::Relaxed);
    }
}

/// Writes kind, thread and time after the length; returns where the body starts. The
/// length (first 4 bytes) is filled by the caller once known; for a flush marker (no
/// body) it is set here.
fn encode_header(record: &mut [u8], kind: u8, thread_id: u64, time_or_sequence: u64) -> usize {
    record[4] = kind;
    record[5..13].copy_from_slice(&thread_id.to_ne_bytes());
    record[13..21].copy_from_slice(&time_or_sequence.to_ne_bytes());
    if kind == KIND_FLUSH {
        record[..4].copy_from_slice(&((HEADER + 4) as u32).to_ne_bytes());
        // A flush marker has an empty query id and no frames.
        record[HEADER..HEADER + 4].fill(0);
        return HEADER;
    }
    HEADER
}

fn write_record(record: &[u8]) -> bool {
    let fd = PIPE_WRITE.load(Ordering::Acquire);
    if fd < 0 {
        return false;
    }
    // SAFETY: `record` is valid for its length; write(2) is async-signal-safe.
    let written = unsafe { libc::write(fd, record.as_ptr().cast(), record.len()) };
    written == record.len() as isize
}

/// The collector thread: reads records, hands samples to the sink, answers flushes.
fn collect(read_fd: c_int) {
    let mut buffer = vec![0u8; 1 << 16];
    let mut filled = 0;
    loop {
        // SAFETY: the range written is inside `buffer`.
        let read = unsafe { libc::read(read_fd, buffer[filled..].as_mut_ptr().cast(), buffer.len() - filled) };
        if read < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return;
        }
        if read == 0 {
            return;
        }
        filled += read as usize;
        let mut at = 0;
        while filled - at >= 4 {
            let length = u32::from_ne_bytes([buffer[at], buffer[at + 1], buffer[at + 2], buffer[at + 3]]) as usize;
            if length < HEADER + 4 || length > RECORD_CAPACITY {
                // Cannot happen with whole records; resynchronising is impossible, so drop
                // what is buffered rather than misread it.
                at = filled;
                break;
            }
            if filled - at < length {
                break;
            }
            handle_record(&buffer[at..at + length]);
            at += length;
        }
        buffer.copy_within(at..filled, 0);
        filled -= at;
    }
}

fn handle_record(record: &[u8]) {
    let kind = record[4];
    let u64_at = |at: usize| {
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(&record[at..at + 8]);
        u64::from_ne_bytes(bytes)
    };
    if kind == KIND_FLUSH {
        let mut seen = FLUSH_SEEN.lock();
        *seen = (*seen).max(u64_at(13));
        FLUSH_DONE.notify_all();
        return;
    }
    let query_id_length = u16::from_ne_bytes([record[HEADER], record[HEADER + 1]]) as usize;
    let frames_at = HEADER + 2 + query_id_length;
    let query_id = String::from_utf8_lossy(&record[HEADER + 2..frames_at]).into_owned();
    let count = u16::from_ne_bytes([record[frames_at], record[frames_at + 1]]) as usize;
    let trace = (0..count).map(|i| u64_at(frames_at + 2 + 8 * i)).collect();
    let sample = Sample {
        trace_type: if kind == TraceType::Cpu.value() as u8 { TraceType::Cpu } else { TraceType::Real },
        thread_id: u64_at(5),
        timestamp_ns: u64_at(13),
        query_id,
        trace,
    };
    let sink = SINK.read().clone();
    if let Some(sink) = sink {
        sink(sample);
    }
}
