#!/usr/bin/env python3
"""Write a large synthetic profile in one of gprof2dot's "other" input formats.

  make_format_inputs.py FORMAT OUT_PATH SIZE_MB [--seed N]

FORMAT is prof, axe, hprof, json, sleepy, sysprof, xperf or dtrace.  The file
written is within a few percent of SIZE_MB megabytes (10^6 bytes; for sleepy
the size of the zip on disk, whose Callstacks.txt is deflated as Very Sleepy
does, so it holds several times more text), is the same for the same
arguments and seed (default 1), and is read by both gprof2dot
(`gprof2dot.py -f FORMAT OUT_PATH`) and graphgen.  Meant for measuring reader
throughput: it is not a test and asserts nothing.

The profiled "program" is one model shared by every format:

* Functions: about 250 per MB for the stack formats (2500 for 10 MB, most of
  which occur in the stacks; a Zipf tail stays unsampled), and as many as the
  size needs for prof/axe (their size is the call graph itself, ~1.4 KB
  per function for prof, ~1.8 KB for axe).  Names are C++-like: namespaces, classes, class templates with
  one or two arguments, ctors/dtors, operators, lambdas, std:: container
  internals of 150+ characters, next to short C names of libc, libm, zlib and
  OpenSSL.  Each function lives in a module: the executable and four of its
  own shared libraries under /opt/acme, and six system libraries with full
  paths (Windows DLL names for xperf/sleepy, Java packages for hprof).
* Calls: functions sit on 58 levels; each calls 1-12 functions of the next
  few levels, the first ones much more often (Zipf weights), so a few hot
  paths carry most samples.  A few percent of the functions recurse directly
  (1-5 extra frames), and a few groups of 2-3 functions of one level call
  each other in a ring (mutual recursion; prof/axe tag them <cycle N> and
  give each a <cycle N as a whole> entry).  A stack is a walk from main or a
  thread entry down to a random depth (gamma distributed, 5-60 frames) and
  often ends in a shared leaf such as memmove, malloc or a mutex.
* Samples: stacks are drawn by a Yule process (a new walk with probability
  0.3, else a copy of an earlier sample), so stack counts follow a power law.

Layouts, following the real files in ../shared/corpus and testdata/:
  prof     full GNU gprof output: flat profile, call graph (<spontaneous>,
           N/M counts, N+M self calls, cycle tags and entries), the form feed,
           the index by function name.
  axe      VTune "gprof-cc" report: fixed columns, whitespace-padded separator
           lines, [0] <spontaneous> entry, cycle entries, Index/Function footer.
  hprof    hprof ASCII output: header, --------, THREAD START/END, one TRACE
           per distinct stack, CPU SAMPLES BEGIN/END table (6 fields a row).
  json     gprof2dot's JSON schema (version 0): one event per sample,
           leaf-first call chains, functions with module paths.
  sleepy   Very Sleepy 0.82 zip: Symbols.txt, Callstacks.txt (one line per
           distinct stack, seconds then symbol ids leaf first, CRLF),
           Stats.txt, "Version 0.82 required"; a few functions have two
           symbol ids.
  sysprof  sysprof 1.x XML: objects (quoted, XML-escaped names, total/self)
           and the call tree nodes ([everything] > [process] > frames),
           a few "In file ..." pseudo-objects.
  xperf    xperf CSV export (13 columns, ", " separated, CRLF, no quotes, no
           commas or slashes in names), one row per sample, [Root]/ stacks,
           a second process sharing the DLLs, Idle rows.
  dtrace   `CPU ID FUNCTION:NAME` header, aggregated ustack() counts sorted
           ascending, module`symbol+0xoff frames.

Sizes at which gprof2dot needs about 15-20 s (2-core dev machine): prof 80,
axe 120, hprof 200, json 100, sleepy 20, sysprof 100, xperf 200, dtrace 250.
Generating those takes 10-60 s and up to ~400 MB of memory.
"""
import argparse
import bisect
import math
import os
import random
import sys
import zipfile
import zlib

MB = 1000 * 1000
FORMATS = ("prof", "axe", "hprof", "json", "sleepy", "sysprof", "xperf", "dtrace")

NLEVELS = 64          # levels 0-2: roots, 3-59: ordinary code, 60-63: shared leaves
TOP = 59              # deepest level of ordinary code
MAX_DEPTH = 60        # frames per stack

# key: (Linux path, Windows module, dtrace module, ordinary levels, weight)
MODULES = {
    "app": ("/opt/acme/bin/acme-server", "acme-server.exe", "acme-server", (3, 22), 3.0),
    "core": ("/opt/acme/lib/libacme_core.so.4", "acme_core.dll", "/opt/acme/lib/libacme_core.so.4", (3, 54), 5.0),
    "net": ("/opt/acme/lib/libacme_net.so.4", "acme_net.dll", "/opt/acme/lib/libacme_net.so.4", (5, 45), 3.0),
    "render": ("/opt/acme/lib/libacme_render.so.4", "acme_render.dll", "/opt/acme/lib/libacme_render.so.4", (6, 52), 3.0),
    "db": ("/opt/acme/lib/libacme_db.so.4", "acme_db.dll", "/opt/acme/lib/libacme_db.so.4", (6, 52), 3.0),
    "proto": ("/usr/lib/x86_64-linux-gnu/libprotobuf.so.32", "libprotobuf.dll", "libprotobuf.so.32", (20, 56), 1.5),
    "ssl": ("/usr/lib/x86_64-linux-gnu/libssl.so.3", "libssl-3-x64.dll", "libssl.so.3", (25, 57), 1.0),
    "z": ("/usr/lib/x86_64-linux-gnu/libz.so.1", "zlib1.dll", "libz.so.1", (35, 59), 0.7),
    "stdcxx": ("/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.32", "msvcp140.dll", "libstdc++.so.6", (15, 59), 3.0),
    "m": ("/usr/lib/x86_64-linux-gnu/libm.so.6", "ucrtbase.dll", "libm.so.6", (40, 59), 0.7),
    "c": ("/usr/lib/x86_64-linux-gnu/libc.so.6", "ucrtbase.dll", "libc.so.6", (35, 59), 1.5),
    # only for the fixed root frames
    "ntdll": (None, "ntdll.dll", None, None, 0),
    "kernel32": (None, "kernel32.dll", None, None, 0),
}

# ---------------------------------------------------------------------------------------------------------
# Names

CXX_NS = {
    "app": ["acme::app", "acme::app::cli", "acme::app::(anonymous namespace)", "acme::app::service"],
    "core": ["acme::core", "acme::core::detail", "acme::util", "acme::core::mem", "acme::core::sched"],
    "net": ["acme::net", "acme::net::http", "acme::net::tls", "acme::net::rpc", "boost::asio::detail"],
    "render": ["acme::render", "acme::render::gl", "acme::math", "acme::render::scene"],
    "db": ["acme::db", "acme::db::sql", "acme::db::btree", "acme::db::wal"],
    "proto": ["google::protobuf", "google::protobuf::internal", "google::protobuf::io"],
}
CLASS_PREFIX = ["", "", "", "Http", "Tls", "Async", "Basic", "Shared", "LockFree", "Ring", "Hash", "Sparse",
                "Dense", "Bloom", "Lru", "Gpu", "Batch", "Frame", "Wal", "Column"]
CLASS_WORD = ["Request", "Response", "Handler", "Buffer", "Pool", "Scheduler", "Task", "Worker", "Queue",
              "Session", "Connection", "Channel", "Parser", "Lexer", "Token", "Node", "Tree", "Graph", "Index",
              "Cursor", "Table", "Row", "Page", "Cache", "Entry", "Shader", "Mesh", "Texture", "Camera",
              "Scene", "Vector3", "Matrix4", "Quaternion", "Allocator", "Arena", "Logger", "Config",
              "Registry", "Context", "Stream", "Reader", "Writer", "Encoder", "Decoder", "Socket", "Acceptor",
              "Resolver", "Timer", "Event", "Transaction", "Statement", "Query", "Planner", "Executor",
              "Visitor", "Serializer", "Checksum", "Message", "Descriptor", "Reflection", "Field"]
METHODS = ["run", "process", "handle", "dispatch", "execute", "update", "render", "parse", "serialize",
           "deserialize", "read", "write", "flush", "commit", "lookup", "insert", "erase", "find", "resize",
           "reserve", "compute", "apply", "visit", "accept", "emit", "notify", "wait", "poll", "schedule",
           "submit", "encode", "decode", "hash", "compare", "merge", "split", "build", "init", "reset", "tick",
           "step", "load", "store", "allocate", "deallocate", "acquire", "release", "on_read", "on_write",
           "on_timeout", "handle_request", "process_batch", "do_work", "try_lock", "advance", "rebalance",
           "evict", "prefetch", "validate", "finalize", "begin_frame", "end_frame", "draw", "cull", "upload"]
OPERATORS = ["operator()", "operator==", "operator<", "operator[]", "operator=", "operator<<", "operator+="]
ARG_TYPES = ["int", "unsigned long", "double", "float", "bool", "char const*", "std::string const&",
             "std::basic_string_view<char, std::char_traits<char> >", "void*", "unsigned int",
             "acme::core::Buffer&", "acme::net::Endpoint const&", "std::vector<int, std::allocator<int> > const&",
             "std::shared_ptr<acme::core::Task>", "std::function<void ()>", "acme::math::Vector3 const&",
             "long long", "std::chrono::duration<long, std::ratio<1l, 1000000000l> >", "acme::db::Row const&",
             "std::unique_ptr<acme::net::Message, std::default_delete<acme::net::Message> >",
             "google::protobuf::Message const&", "unsigned char const*"]
TEMPLATE_ARGS = ["int", "float", "acme::core::Task*", "std::string", "acme::db::Row", "unsigned char",
                 "acme::net::Connection", "acme::render::Mesh", "acme::math::Vector3", "unsigned long",
                 "std::pair<int const, std::string>", "acme::core::Entry<int>"]
STD_CONTAINERS = [
    ("std::vector<{T}, std::allocator<{T}> >", ["push_back({T} const&)", "reserve(unsigned long)",
     "_M_realloc_insert<{T} const&>(__gnu_cxx::__normal_iterator<{T}*, std::vector<{T}, std::allocator<{T}> > >, {T} const&)",
     "_M_default_append(unsigned long)", "operator=(std::vector<{T}, std::allocator<{T}> > const&)"]),
    ("std::_Hashtable<{T}, std::pair<{T} const, int>, std::allocator<std::pair<{T} const, int> >, std::__detail::_Select1st, std::equal_to<{T}>, std::hash<{T}>, std::__detail::_Mod_range_hashing, std::__detail::_Default_ranged_hash, std::__detail::_Prime_rehash_policy, std::__detail::_Hashtable_traits<true, false, true> >",
     ["_M_find_before_node(unsigned long, {T} const&, unsigned long) const", "_M_rehash(unsigned long, unsigned long const&)",
      "_M_insert_unique_node(unsigned long, unsigned long, std::__detail::_Hash_node<std::pair<{T} const, int>, true>*, unsigned long)"]),
    ("std::_Rb_tree<{T}, std::pair<{T} const, double>, std::_Select1st<std::pair<{T} const, double> >, std::less<{T}>, std::allocator<std::pair<{T} const, double> > >",
     ["_M_get_insert_unique_pos({T} const&)", "_M_erase(std::_Rb_tree_node<std::pair<{T} const, double> >*)",
      "find({T} const&)"]),
    ("std::deque<{T}, std::allocator<{T}> >", ["_M_push_back_aux<{T} const&>({T} const&)", "_M_reallocate_map(unsigned long, bool)"]),
]
STD_FREE = ["std::__introsort_loop<__gnu_cxx::__normal_iterator<{T}*, std::vector<{T}, std::allocator<{T}> > >, long, __gnu_cxx::__ops::_Iter_less_iter>",
            "std::__insertion_sort<__gnu_cxx::__normal_iterator<{T}*, std::vector<{T}, std::allocator<{T}> > >, __gnu_cxx::__ops::_Iter_less_iter>",
            "std::__adjust_heap<__gnu_cxx::__normal_iterator<{T}*, std::vector<{T}, std::allocator<{T}> > >, long, {T}, __gnu_cxx::__ops::_Iter_less_iter>"]
STD_PLAIN = ["std::mutex::lock()", "std::condition_variable::wait(std::unique_lock<std::mutex>&)",
             "std::condition_variable::notify_one()", "std::ostream::operator<<(int)",
             "std::basic_ostream<char, std::char_traits<char> >& std::__ostream_insert<char, std::char_traits<char> >(std::basic_ostream<char, std::char_traits<char> >&, char const*, long)",
             "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >::_M_mutate(unsigned long, unsigned long, char const*, unsigned long)",
             "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >::reserve(unsigned long)",
             "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >::_M_replace(unsigned long, unsigned long, char const*, unsigned long)",
             "std::_Sp_counted_base<(__gnu_cxx::_Lock_policy)2>::_M_release()", "std::locale::locale()",
             "std::__detail::_Prime_rehash_policy::_M_need_rehash(unsigned long, unsigned long, unsigned long) const",
             "std::chrono::_V2::steady_clock::now()", "std::thread::_State_impl<std::thread::_Invoker<std::tuple<acme::core::sched::Pool::start(unsigned long)::{lambda()#1}> > >::_M_run()"]
C_NAMES = {
    "c": (["__libc_recv", "__libc_send", "__GI___poll", "epoll_wait", "__GI___clock_gettime", "_IO_file_write",
           "_IO_new_file_xsputn", "__vfprintf_internal", "__strchr_avx2", "__memchr_avx2", "__strcmp_avx2",
           "__GI___nanosleep", "__sched_yield", "__libc_pread64", "__GI___mmap64", "__munmap", "qsort_r",
           "msort_with_tmp", "__getenv", "__lll_lock_wake", "pthread_cond_wait", "pthread_cond_signal",
           "__pthread_once_slow", "__tls_get_addr", "__GI___libc_write", "__libc_read", "_int_realloc",
           "__libc_calloc", "__memcmp_avx2_movbe", "__strncpy_avx2"],
          ["__libc_", "__GI_", "_IO_", "__", ""], ["recv", "send", "poll", "futex", "mmap", "memrchr", "qsort",
          "fwrite", "fflush", "clock", "sigprocmask", "socket", "connect", "accept4", "cond", "signal", "getpid",
          "readv", "writev", "fstat", "open", "close", "lseek", "dl_iterate", "strtol", "strtod", "sprintf"]),
    "m": (["__sin_fma", "__cos_fma", "__exp1", "__ieee754_pow_fma", "__ieee754_log_fma", "__atan2_finite",
           "__hypot", "sqrtf", "__fmod", "__tan_fma", "__sincosf", "__expf_fma", "__logf_fma"],
          ["__ieee754_", "__", ""], ["acos", "asin", "atan", "cbrt", "erf", "exp2", "log2", "log10", "sinh",
          "cosh", "tanh", "lgamma", "remainder", "nextafter"]),
    "z": (["inflate", "inflate_fast", "inflate_table", "deflate", "deflate_slow", "deflate_fast",
           "longest_match", "fill_window", "adler32_z", "crc32_z", "compress_block", "build_tree", "send_tree",
           "_tr_flush_block", "updatewindow"], ["", "z_", "_tr_"], ["gen_bitlen", "pqdownheap", "bi_flush",
          "scan_tree", "copy_block", "gen_codes", "detect_data_type", "read_buf", "flush_pending"]),
    "ssl": (["SSL_read", "SSL_write", "ssl3_read_bytes", "ssl3_write_bytes", "tls1_enc", "ssl3_get_record",
             "EVP_EncryptUpdate", "EVP_DecryptUpdate", "aesni_gcm_encrypt", "aesni_gcm_decrypt",
             "ossl_gcm_cipher", "gcm_ghash_avx", "tls_process_server_hello", "ossl_statem_connect"],
            ["ossl_", "tls_", "ssl3_", "EVP_", "BN_"], ["cipher_update", "mac_final", "rec_layer_read",
            "handshake_hash", "bn_mul_mont", "ecp_nistz256_point_add", "sha256_block_data_order", "hmac_init",
            "kdf_derive", "rand_bytes", "digest_update", "pkey_sign"]),
}
JAVA_PKG = {
    "app": ["com.acme.app", "com.acme.app.cli"],
    "core": ["com.acme.core", "com.acme.util", "com.acme.core.sched"],
    "net": ["com.acme.net", "io.netty.channel", "io.netty.buffer", "io.netty.util.concurrent"],
    "render": ["com.acme.render", "com.acme.math"],
    "db": ["com.acme.db", "com.acme.db.sql", "org.h2.mvstore"],
    "proto": ["com.google.protobuf"],
    "ssl": ["sun.security.ssl", "javax.crypto", "com.sun.crypto.provider"],
    "z": ["java.util.zip"],
    "stdcxx": ["java.util", "java.util.concurrent", "java.util.stream", "java.lang"],
    "m": ["jdk.internal.math", "java.lang"],
    "c": ["jdk.internal.misc", "sun.nio.ch", "java.io", "java.lang"],
}
NATIVE_JAVA_MODULES = ("c", "m", "z")


def camel(words):
    return "".join(w[:1].upper() + w[1:] for w in words)


def java_method(rng):
    r = rng.random()
    if r < 0.07:
        return "<init>"
    m = rng.choice(METHODS).split("_")
    name = m[0] + camel(m[1:])
    if r < 0.12:
        return "lambda$%s$%d" % (name, rng.randrange(8))
    if r < 0.15:
        return "access$%d00" % rng.randrange(1, 6)
    return name


class Func:
    __slots__ = ("idx", "mod", "level", "gnu", "short", "msvc", "xperf", "java", "jfile", "native",
                 "callees", "cum", "leaf", "rec", "cycle")

    def __init__(self, idx, mod, level):
        self.idx = idx
        self.mod = mod
        self.level = level
        self.callees = []
        self.cum = []
        self.leaf = False
        self.rec = False
        self.cycle = None
        self.native = mod in NATIVE_JAVA_MODULES


class Namer:
    """Makes names unique in every naming style at once."""

    def __init__(self, rng):
        self.rng = rng
        self.seen = {"gnu": set(), "short": set(), "msvc": set(), "xperf": set(), "java": set()}

    def take(self, f, gnu, msvc, xperf, java, jfile):
        names = (("gnu", gnu), ("short", strip_args(gnu)), ("msvc", msvc), ("xperf", xperf_safe(xperf)),
                 ("java", java))
        for style, name in names:
            if name in self.seen[style]:
                return False
        for style, name in names:
            self.seen[style].add(name)
        f.gnu, f.short, f.msvc, f.xperf, f.java, f.jfile = [name for _, name in names] + [jfile]
        return True

    def name(self, f):
        for attempt in range(200):
            if self.take(f, *self.candidate(f, attempt)):
                return
        raise RuntimeError("cannot name function %d" % f.idx)

    def java_name(self, f, attempt):
        rng = self.rng
        pkg = rng.choice(JAVA_PKG[f.mod])
        cls = camel([rng.choice(CLASS_PREFIX), rng.choice(CLASS_WORD)])
        if attempt > 20:
            cls += str(attempt)
        inner = ""
        if rng.random() < 0.2:
            inner = "$" + (str(rng.randrange(1, 5)) if rng.random() < 0.4 else rng.choice(CLASS_WORD))
        return "%s.%s%s.%s" % (pkg, cls, inner, java_method(rng)), cls + ".java"

    def candidate(self, f, attempt):
        rng = self.rng
        java, jfile = self.java_name(f, attempt)
        suffix = "" if attempt < 30 else str(attempt)
        if f.mod in C_NAMES:
            fixed, prefixes, words = C_NAMES[f.mod]
            if attempt < 3 and rng.random() < 0.5:
                name = rng.choice(fixed)
            else:
                name = rng.choice(prefixes) + "_".join(rng.sample(words, rng.choice((1, 2, 2, 3)))) + suffix
            return name, name, name, java, jfile
        if f.mod == "stdcxx":
            return self.std_name(java, jfile, suffix)
        return self.cxx_name(f, java, jfile, suffix)

    def std_name(self, java, jfile, suffix):
        rng = self.rng
        r = rng.random()
        t = rng.choice(TEMPLATE_ARGS)
        if r < 0.55:
            cont, methods = rng.choice(STD_CONTAINERS)
            cls = cont.replace("{T}", t)
            m = rng.choice(methods).replace("{T}", t)
            gnu = cls + "::" + m
            base = cont.split("<")[0]
            msvc = msvc_type(cls) + "::" + m.split("(")[0].split("<")[0]
            xperf = "%s<%s>::%s" % (base, msvc_type(t), m.split("(")[0].split("<")[0])
        elif r < 0.8:
            fn = rng.choice(STD_FREE).replace("{T}", t)
            gnu = "void " + fn + "(__gnu_cxx::__normal_iterator<%s*, std::vector<%s, std::allocator<%s> > >, long)" % (t, t, t)
            msvc = msvc_type(fn)
            xperf = fn.split("<")[0] + "<" + msvc_type(t) + ">"
        else:
            gnu = rng.choice(STD_PLAIN)
            msvc = msvc_type(gnu.split("(")[0]) if "::_M_run" not in gnu else "std::thread::_Invoke"
            xperf = msvc
        if suffix:
            gnu, msvc, xperf = gnu + suffix, msvc + suffix, xperf + suffix
        return gnu, msvc, xperf, java, jfile

    def cxx_name(self, f, java, jfile, suffix):
        rng = self.rng
        ns = rng.choice(CXX_NS[f.mod])
        cls = camel([rng.choice(CLASS_PREFIX), rng.choice(CLASS_WORD)])
        targs = []
        if rng.random() < 0.18:
            targs = rng.sample(TEMPLATE_ARGS, rng.choice((1, 1, 2)))
        args = [rng.choice(ARG_TYPES) for _ in range(rng.choice((0, 0, 1, 1, 1, 2, 2, 3)))]
        const = rng.random() < 0.25
        r = rng.random()
        kind = "method"
        if r < 0.06:
            kind, method = "ctor", cls
        elif r < 0.10:
            kind, method = "dtor", "~" + cls
            args = []
        elif r < 0.16:
            method = rng.choice(OPERATORS)
        elif r < 0.23:
            kind, method = "lambda", rng.choice(METHODS)
        elif r < 0.30:
            kind, method = "free", rng.choice(METHODS)
        else:
            method = rng.choice(METHODS)
        method += suffix
        qual = ns + "::" + cls
        qual_msvc = qual_xperf = qual.replace("(anonymous namespace)", "`anonymous namespace'")
        if targs:
            close = " >" if targs[-1].endswith(">") else ">"
            qual += "<" + ", ".join(targs) + close
            qual_msvc += "<" + ",".join(msvc_type(t) for t in targs) + close
            qual_xperf += "<" + msvc_type(targs[0]) + (" >" if targs[0].endswith(">") else ">")
        arglist = "(" + ", ".join(args) + ")" + (" const" if const and kind == "method" else "")
        if kind == "free":
            gnu = ns + "::" + method + arglist
            msvc = xperf = ns.replace("(anonymous namespace)", "`anonymous namespace'") + "::" + method
        elif kind == "lambda":
            n = rng.randrange(1, 4)
            gnu = "%s::%s%s::{lambda()#%d}::operator()() const" % (qual, method, arglist, n)
            tag = "<lambda_%08x>" % rng.getrandbits(32)
            msvc = "%s::%s::__l2::%s::operator()" % (qual_msvc, method, tag)
            xperf = "%s::%s::__l2::%s::operator()" % (qual_xperf, method, tag)
        else:
            gnu = qual + "::" + method + arglist
            msvc = qual_msvc + "::" + method
            xperf = qual_xperf + "::" + method
        return gnu, msvc, xperf, java, jfile


def msvc_type(t):
    return t.replace("*", " *").replace(", ", ",")


def strip_args(name):
    """The name without its trailing parameter list, as VTune shows functions."""
    if name.endswith(" const"):
        name = name[:-6]
    if not name.endswith(")"):
        return name
    depth = 0
    for k in range(len(name) - 1, -1, -1):
        if name[k] == ")":
            depth += 1
        elif name[k] == "(":
            depth -= 1
            if depth == 0:
                return name[:k] if k else name
    return name


def xperf_safe(name):
    """xperf's CSV has no quoting: keep only the first argument of any template argument list that
    holds a comma (std::vector<int,std::allocator<int> > -> std::vector<int>); no '/' or '!'."""
    while "," in name:
        comma = name.index(",")
        depth, start = 0, comma
        while start > 0:
            start -= 1
            if name[start] == ">":
                depth += 1
            elif name[start] == "<":
                if depth == 0:
                    break
                depth -= 1
        depth, end = 0, comma
        while end < len(name) - 1:
            end += 1
            if name[end] == "<":
                depth += 1
            elif name[end] == ">":
                if depth == 0:
                    break
                depth -= 1
        first = name[start + 1:comma].rstrip()
        name = name[:start + 1] + first + (" >" if first.endswith(">") else ">") + name[end + 1:]
    return name.replace("/", "_").replace("!", "_")


# ---------------------------------------------------------------------------------------------------------
# The program model

class Program:
    def __init__(self, rng, nfuncs):
        self.rng = rng
        self.funcs = []
        self.levels = [[] for _ in range(NLEVELS)]
        self.namer = Namer(rng)
        self.cycles = []
        self.make_roots()
        self.make_leaves()
        self.make_ordinary(nfuncs)
        self.connect()
        self.add_recursion()

    def new(self, mod, level, gnu=None, msvc=None, java=None, jfile=None, native=None):
        f = Func(len(self.funcs), mod, level)
        if gnu is None:
            self.namer.name(f)
        elif not self.namer.take(f, gnu, msvc or gnu, msvc or gnu, java, jfile):
            raise RuntimeError("duplicate fixed name " + gnu)
        if native is not None:
            f.native = native
        self.funcs.append(f)
        if level is not None:
            self.levels[level].append(f)
        return f

    def make_roots(self):
        """Platform root frames (stack prefixes) and the two entry points at level 2."""
        n = self.new
        self.main = n("app", 2, "main", "main", "com.acme.app.Main.main", "Main.java")
        self.thread = n("stdcxx", 2, "execute_native_thread_routine", "std::thread::_Invoke",
                        "java.util.concurrent.ThreadPoolExecutor.runWorker", "ThreadPoolExecutor.java")
        rtl = n("ntdll", None, "RtlUserThreadStart", java="-rtl")
        btit = n("kernel32", None, "BaseThreadInitThunk", java="-btit")
        self.prefix = {   # java names starting with '-' mark frames that hprof traces leave out
            "linux": ([n("app", None, "_start", java="-_start"), n("c", None, "__libc_start_main", java="-lsm")],
                      [n("c", None, "clone3", java="-clone3"), n("c", None, "start_thread", java="-st")]),
            "windows": ([rtl, btit, n("app", None, "__scrt_common_main_seh", java="-scrt")],
                        [rtl, btit, n("c", None, "thread_start<unsigned int (__cdecl*)(void *)>", "thread_start",
                                      java="-ts")]),
            "java": ([], [n("stdcxx", None, "Thread::run", java="java.lang.Thread.run", jfile="Thread.java"),
                          n("stdcxx", None, "Worker::run", java="java.util.concurrent.ThreadPoolExecutor$Worker.run",
                            jfile="ThreadPoolExecutor.java")]),
        }
        for f in (self.main, self.thread):
            f.native = False

    def make_leaves(self):
        """Hot shared leaves (levels 60-63) and the chains below them."""
        spec = [  # (module, level, gnu, msvc, java, callee index or None)
            ("c", 60, "__memmove_avx_unaligned_erms", "memcpy", "java.lang.System.arraycopy", None),
            ("c", 60, "__memset_avx2_unaligned_erms", "memset", "java.util.Arrays.fill", None),
            ("stdcxx", 60, "operator new(unsigned long)", "operator new", "java.lang.Object.<init>", 5),
            ("c", 60, "pthread_mutex_lock", "RtlEnterCriticalSection", "jdk.internal.misc.Unsafe.park", 6),
            ("c", 60, "free", "free", "java.lang.ref.Reference.clear", 9),
            ("c", 61, "malloc", "malloc", "java.util.Arrays.copyOf", 7),
            ("c", 61, "__lll_lock_wait", "RtlpWaitOnCriticalSection", "java.util.concurrent.locks.LockSupport.park", 8),
            ("c", 62, "_int_malloc", "RtlpAllocateHeapInternal", "java.lang.StringLatin1.newString", 10),
            ("c", 62, "futex_wait", "NtWaitForAlertByThreadId", "jdk.internal.misc.Unsafe.unpark", None),
            ("c", 61, "_int_free", "RtlpFreeHeap", "java.lang.ref.Reference.enqueue", None),
            ("c", 63, "sysmalloc", "RtlpExtendHeap", "java.lang.StringLatin1.inflate", None),
            ("stdcxx", 60, "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >::_M_append(char const*, unsigned long)",
             "std::basic_string<char,std::char_traits<char>,std::allocator<char> >::append",
             "java.lang.AbstractStringBuilder.append", 2),
            ("c", 60, "__strlen_avx2", "strlen", "java.lang.String.length", None),
            ("stdcxx", 60, "operator delete(void*, unsigned long)", "operator delete", "java.lang.Object.finalize", 4),
        ]
        self.leaves = []
        for mod, level, gnu, msvc, java, _ in spec:
            f = self.new(mod, level, gnu, msvc, java, java.split(".")[-2] + ".java", native=True)
            f.leaf = True
            self.leaves.append(f)
        for f, (_, _, _, _, _, callee) in zip(self.leaves, spec):
            if callee is not None:
                self.set_callees(f, [self.leaves[callee]])
        self.top_leaves = [f for f in self.leaves if f.level == 60]
        self.top_leaf_cum = list(accumulate(1.0 / (i + 1) ** 1.2 for i in range(len(self.top_leaves))))

    def make_ordinary(self, nfuncs):
        rng = self.rng
        shape = [0.0] * NLEVELS
        for lvl in range(3, TOP + 1):
            shape[lvl] = 1.0 + 1.5 * math.exp(-((lvl - 22) / 14.0) ** 2)
        total = sum(shape)
        mods = [k for k, v in MODULES.items() if v[3]]
        for lvl in range(3, TOP + 1):
            here = [k for k in mods if MODULES[k][3][0] <= lvl <= MODULES[k][3][1]]
            weights = list(accumulate(MODULES[k][4] for k in here))
            for _ in range(max(2, int(round(nfuncs * shape[lvl] / total)))):
                mod = here[bisect.bisect(weights, rng.random() * weights[-1])]
                f = self.new(mod, lvl)
                if lvl > 8 and rng.random() < 0.05:
                    f.leaf = True
        for f in self.levels[TOP]:
            f.leaf = True

    def set_callees(self, f, callees, skew=1.6):
        f.callees = callees
        f.cum = list(accumulate(1.0 / (i + 1) ** skew for i in range(len(callees))))

    def connect(self):
        rng = self.rng
        callers = {}
        for lvl in range(2, TOP):
            for f in self.levels[lvl]:
                if f.leaf:
                    continue
                want = min(12, 1 + int(rng.expovariate(1 / 2.2)))
                chosen = []
                for _ in range(want * 3):
                    if len(chosen) >= want:
                        break
                    r = rng.random()
                    target = min(TOP, lvl + (1 if r < 0.65 else 2 if r < 0.9 else 3))
                    pool = self.levels[target]
                    same = [g for g in pool if g.mod == f.mod] if rng.random() < 0.7 else None
                    c = rng.choice(same or pool)
                    if c not in chosen:
                        chosen.append(c)
                self.set_callees(f, chosen)
                for c in chosen:
                    callers[c.idx] = True
        # every ordinary function gets at least one caller
        for lvl in range(3, TOP + 1):
            for f in self.levels[lvl]:
                if f.idx in callers:
                    continue
                if lvl == 3:
                    parent = rng.choice((self.main, self.thread))
                else:
                    parent = rng.choice([g for g in self.levels[lvl - 1] if not g.leaf] or self.levels[lvl - 2])
                self.set_callees(parent, parent.callees + [f])
                callers[f.idx] = True

    def add_recursion(self):
        """Direct recursion on ~3% of the functions and a few mutual-recursion rings,
        preferring functions that the walks visit often so that they show in the graph."""
        rng = self.rng
        visits = {}
        for _ in range(3000):
            for i in self.walk(rng)[1]:
                visits[i] = visits.get(i, 0) + 1
        hot = sorted((f for f in self.funcs if f.level is not None and 6 <= f.level <= 35 and not f.leaf
                      and f.callees and f.idx in visits), key=lambda f: (-visits[f.idx], f.idx))
        ordinary = [f for f in self.funcs if f.level is not None and 3 <= f.level <= TOP and not f.leaf]
        for f in rng.sample(ordinary, max(2, len(ordinary) // 33)) + hot[1:3]:
            f.rec = True
        ncycles = min(12, 2 + len(self.funcs) // 1500)
        heads = [f for f in hot[3:] if not f.rec][:ncycles * 3]
        rng.shuffle(heads)
        for head in heads:
            if len(self.cycles) >= ncycles:
                break
            if head.cycle is not None:
                continue
            peers = [g for g in self.levels[head.level] if g is not head and not g.rec and g.cycle is None
                     and not g.leaf]
            size = 3 if rng.random() < 0.3 else 2
            if len(peers) < size - 1:
                continue
            ring = [head] + rng.sample(peers, size - 1)
            for g in ring:
                g.cycle = ring
            self.cycles.append(ring)

    def walk(self, rng):
        """One stack, root first: (kind, tuple of function indices); kind 0 = main, 1 = thread."""
        kind = 0 if rng.random() < 0.55 else 1
        f = self.main if kind == 0 else self.thread
        frames = [f.idx]
        target = min(MAX_DEPTH, 5 + int(rng.gammavariate(2.0, 10.0))) - 2
        while len(frames) < target:
            if f.rec and rng.random() < 0.5:
                for _ in range(min(rng.randint(1, 5), target - len(frames))):
                    frames.append(f.idx)
            if f.cycle is not None and rng.random() < 0.6:
                ring = f.cycle
                pos = ring.index(f)
                for _ in range(min(rng.randint(1, 2 * len(ring)), target - len(frames))):
                    pos = (pos + 1) % len(ring)
                    frames.append(ring[pos].idx)
                f = ring[pos]
            if not f.callees or len(frames) >= target:
                break
            f = f.callees[bisect.bisect(f.cum, rng.random() * f.cum[-1])]
            frames.append(f.idx)
        if rng.random() < 0.4 and len(frames) < MAX_DEPTH - 3 and f.level < 60:
            f = self.top_leaves[bisect.bisect(self.top_leaf_cum, rng.random() * self.top_leaf_cum[-1])]
            frames.append(f.idx)
            while f.callees and rng.random() < 0.45 and len(frames) < MAX_DEPTH - 2:
                f = f.callees[0]
                frames.append(f.idx)
        return kind, tuple(frames)


def accumulate(values):
    total = 0.0
    for v in values:
        total += v
        yield total


class Sampler:
    """Yule process over walks: a sample is a new walk with probability ALPHA, else a copy of an
    earlier sample.  Identical walks share one stack id."""
    ALPHA = 0.3

    def __init__(self, prog, rng):
        self.prog = prog
        self.rng = rng
        self.stacks = []      # id -> (kind, frames)
        self.ids = {}         # (kind, frames) -> id
        self.draws = []

    def draw(self):
        """Return (stack id, is_new)."""
        rng = self.rng
        if not self.draws or rng.random() < self.ALPHA:
            key = self.prog.walk(rng)
            sid = self.ids.get(key)
            new = sid is None
            if new:
                sid = len(self.stacks)
                self.ids[key] = sid
                self.stacks.append(key)
        else:
            sid, new = self.draws[rng.randrange(len(self.draws))], False
        self.draws.append(sid)
        return sid, new


def stack_of(prog, key, platform):
    kind, frames = key
    return [f.idx for f in prog.prefix[platform][kind]] + list(frames)


def site(a, b):
    """A stable small number for the call site a -> b (return offsets, line numbers)."""
    return (a * 2654435761 + b * 40503) % 1000003


# ---------------------------------------------------------------------------------------------------------
# Stack formats

class Out:
    """A text file that counts the bytes written to it (all names are ASCII)."""

    def __init__(self, f, crlf=False):
        self.f, self.n, self.crlf = f, 0, crlf

    @classmethod
    def open(cls, path, newline="\n"):
        return cls(open(path, "w", encoding="utf-8", newline=newline), newline == "\r\n")

    def write(self, s):
        self.n += len(s) + (s.count("\n") if self.crlf else 0)
        self.f.write(s)

    def close(self):
        self.f.close()


def nfuncs_for(size):
    return max(400, int(250 * size / MB))


def write_dtrace(path, size, rng):
    prog = Program(rng, nfuncs_for(size))
    sampler = Sampler(prog, rng)
    header = "CPU     ID                    FUNCTION:NAME\n  3  73691                        :tick-60s \n\n\n"
    texts, used = [], len(header)
    while used < size:
        sid, new = sampler.draw()
        if new:
            frames = stack_of(prog, sampler.stacks[sid], "linux")
            lines = []
            callee = None
            for i in reversed(frames):
                f = prog.funcs[i]
                off = site(i, callee if callee is not None else 7) % 0x3c0
                mod = MODULES[f.mod][2]
                if off % 29 == 0:
                    lines.append("              %s`%s\n" % (mod, f.gnu))
                else:
                    lines.append("              %s`%s+0x%x\n" % (mod, f.gnu, off + 1))
                callee = i
            texts.append("".join(lines))
            used += len(texts[-1]) + 19
    counts = [0] * len(texts)
    for sid in sampler.draws:
        counts[sid] += 1
    out = Out.open(path)
    out.write(header)
    for sid in sorted(range(len(texts)), key=lambda s: (counts[s], s)):
        out.write(texts[sid])
        out.write("%17d\n\n" % counts[sid])
    out.close()


def write_hprof(path, size, rng):
    prog = Program(rng, nfuncs_for(size))
    sampler = Sampler(prog, rng)
    threads = ["main", "pool-1-thread-1", "pool-1-thread-2", "pool-1-thread-3", "pool-1-thread-4",
               "nioEventLoopGroup-2-1", "nioEventLoopGroup-2-2", "Finalizer", "Reference Handler"]
    head = ["JAVA PROFILE 1.0.1, created Thu Mar  6 09:12:44 2025", "",
            "Synthetic profile written by make_format_inputs.py in the layout of -agentlib:hprof=cpu=samples.", "",
            "TRACE           a Java stack trace, deepest frame first.",
            "CPU SAMPLES     traces ranked by the share of samples that hit them.", "",
            "--------", ""]
    for i, name in enumerate(threads):
        head.append('THREAD START (obj=5000%04x, id = %d, name="%s", group="%s")'
                    % (0x150 + i, 200001 + i, name, "system" if name[0] in "FR" else "main"))
    head = "\n".join(head) + "\n"
    texts, used = [], len(head) + 600
    while used < size:
        sid, new = sampler.draw()
        if new:
            frames = [i for i in stack_of(prog, sampler.stacks[sid], "java") if not prog.funcs[i].java.startswith("-")]
            lines = ["TRACE %d:\n" % (300001 + sid)]
            callee = None
            for i in reversed(frames):
                f = prog.funcs[i]
                if f.native:
                    where = "Native method"
                elif f.mod in ("proto", "ssl", "stdcxx") and site(i, callee or 3) % 5 == 0:
                    where = "Unknown line"
                else:
                    where = str(20 + site(i, callee or 3) % 900)
                lines.append("\t%s(%s:%s)\n" % (f.java, f.jfile, where))
                callee = i
            texts.append("".join(lines))
            used += len(texts[-1]) + len(prog.funcs[frames[-1]].java) + 36
    counts = [0] * len(texts)
    for sid in sampler.draws:
        counts[sid] += 1
    out = Out.open(path)
    out.write(head)
    for t in texts:
        out.write(t)
    for i in range(len(threads) - 1, 0, -1):
        out.write("THREAD END (id = %d)\n" % (200001 + i))
    total = len(sampler.draws)
    out.write("CPU SAMPLES BEGIN (total = %d) Thu Mar  6 09:14:02 2025\n" % total)
    out.write("rank   self  accum   count trace method\n")
    accum = 0
    for rank, sid in enumerate(sorted(range(len(texts)), key=lambda s: (-counts[s], s)), 1):
        accum += counts[sid]
        leaf = texts[sid].split("\n", 2)[1][1:].rsplit("(", 1)[0]
        out.write("%4d %5.2f%% %5.2f%% %7d %d %s\n" % (rank, 100.0 * counts[sid] / total, 100.0 * accum / total,
                                                     counts[sid], 300001 + sid, leaf))
    out.write("CPU SAMPLES END\n")
    out.close()


def write_json(path, size, rng):
    prog = Program(rng, nfuncs_for(size))
    sampler = Sampler(prog, rng)
    out = Out.open(path)
    out.write('{"version": 0, "costs": [{"description": "CPU time", "unit": "ns"}],\n "events": [\n')
    index = {}           # function idx -> position in "functions"
    fbytes = 0
    cache = {}
    first = True
    while out.n + fbytes + 8 < size:
        sid, _ = sampler.draw()
        chain = cache.get(sid)
        if chain is None:
            frames = stack_of(prog, sampler.stacks[sid], "linux")
            for i in frames:
                if i not in index:
                    index[i] = len(index)
                    f = prog.funcs[i]
                    fbytes += len(f.gnu) + len(MODULES[f.mod][0]) + 32
            chain = cache[sid] = ", ".join(str(index[i]) for i in reversed(frames))
        cost = 1000000 + int(rng.gauss(0, 40000))
        out.write('%s  {"callchain": [%s], "cost": [%d]}' % ("" if first else ",\n", chain, cost))
        first = False
    out.write('\n ],\n "functions": [\n')
    order = sorted(index, key=index.get)
    out.write(",\n".join('  {"name": %s, "module": %s}' % (json_str(prog.funcs[i].gnu),
                                                            json_str(MODULES[prog.funcs[i].mod][0]))
                         for i in order))
    out.write("\n ]\n}\n")
    out.close()


def json_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def write_xperf(path, size, rng):
    prog = Program(rng, nfuncs_for(size))
    sampler = Sampler(prog, rng)
    out = Out.open(path, "\r\n")
    out.write("Process Name, Display Name, Process, Stack, Module, Function, Address, Thread ID, CPU, Weight, "
              "% Weight, Count, TimeStamp\n")
    procs = [("acme-server.exe", 4144, [5104, 5112, 5120, 6388, 6392, 7020]),
             ("acme-indexer.exe", 6120, [6124, 6130])]
    cache = {}
    t = 3.0
    while out.n < size:
        t += 0.000998 + rng.random() * 0.000004
        cpu = rng.randrange(8)
        if rng.random() < 0.03:
            out.write("Idle, Idle, Idle (0), [Root]/ntoskrnl.exe!KiIdleLoop, ntoskrnl.exe, KiIdleLoop, "
                      "0xfffff8034a21c4d0, 0, %d, 1.000000, 0.01, 1, %.9f\n" % (cpu, t))
            continue
        sid, _ = sampler.draw()
        p = 1 if site(sid, 1) % 13 == 0 else 0
        row = cache.get((sid, p))
        if row is None:
            frames = stack_of(prog, sampler.stacks[sid], "windows")
            exe = procs[p][0]
            syms = []
            for i in frames:
                f = prog.funcs[i]
                mod = exe if f.mod == "app" else MODULES[f.mod][1]
                syms.append("%s!%s" % (mod, f.xperf))
            leaf = prog.funcs[frames[-1]]
            mod, fn = syms[-1].split("!", 1)
            tids = procs[p][2]
            row = cache[(sid, p)] = "%s, %s, %s (%d), [Root]/%s, %s, %s, 0x%016x, %d" % (
                exe, exe, exe, procs[p][1], "/".join(syms), mod, fn,
                0x7ff700001000 + leaf.idx * 0x140 + site(leaf.idx, sid) % 0x100,
                tids[0] if sampler.stacks[sid][0] == 0 else tids[1 + sid % (len(tids) - 1)])
        w = 1.0 + rng.gauss(0, 0.0008)
        out.write("%s, %d, %.6f, %.2f, 1, %.9f\n" % (row, cpu, w, w / 10.0, t))
    out.close()


def write_sleepy(path, size, rng):
    prog = Program(rng, nfuncs_for(size))
    sampler = Sampler(prog, rng)
    win_module = {k: (v[1] or "").rsplit(".", 1)[0] for k, v in MODULES.items()}
    symbol = {}          # function idx -> its symbol ids (a few functions have two, as in real files)
    sym_lines = []
    lines = []           # stack ids, in the order of Callstacks.txt

    def symbol_ids(sid, frames):
        return " ".join(symbol[i][(sid + pos) % len(symbol[i])] for pos, i in enumerate(reversed(frames)))

    est = zlib.compressobj(6, zlib.DEFLATED, -15)   # tracks the deflated size of Callstacks.txt
    packed = 0
    while True:
        sid, new = sampler.draw()
        if not new:
            continue
        frames = stack_of(prog, sampler.stacks[sid], "windows")
        for i in frames:
            syms = symbol.get(i)
            if syms is None:
                f = prog.funcs[i]
                syms = symbol[i] = []
                own = f.mod in ("app", "core", "net", "render", "db") and "::" in f.msvc
                for alias in range(2 if site(i, 5) % 19 == 0 else 1):
                    if own:
                        src = "C:\\build\\acme\\src\\%s\\%s.cpp" % (f.mod, f.msvc.split("::")[-2].split("<")[0].lower())
                        line = 10 + site(i, alias) % 2000
                    else:
                        src, line = "[unknown]", 0
                    syms.append("sym%d" % len(sym_lines))
                    sym_lines.append('%s "%s" "%s" "%s" %d\r\n' % (syms[-1], win_module[f.mod], f.msvc, src, line))
        lines.append(sid)
        # most stacks end up with one sample, ~0.001 s
        packed += len(est.compress(("%.6f %s\r\n" % (0.000992 * (1 + 0.1 * rng.random()),
                                                       symbol_ids(sid, frames))).encode()))
        if len(lines) % 200 == 0:
            packed_sym = sum(len(t) for t in sym_lines) // 5 + 400     # Symbols.txt deflates ~5:1
            # x1.06: the final seconds (hot stacks have many samples) deflate a little worse
            if 1.06 * (packed + len(est.copy().flush())) + packed_sym >= size:
                break
    counts = [0] * len(sampler.stacks)
    for sid in sampler.draws:
        counts[sid] += 1
    seconds = sum(counts[sid] for sid in lines) * 0.000992
    stats = ("Filename: C:\\acme\\bin\\acme-server.exe\r\nDuration: %.6f\r\nDate: Thu Mar  6 09:14:02 2025\r\n"
             "Samples: %d\r\n" % (seconds, len(sampler.draws)))
    stamp = (2025, 3, 6, 9, 14, 2)

    def member(name, method=zipfile.ZIP_DEFLATED):
        info = zipfile.ZipInfo(name, stamp)
        info.compress_type = method
        return info

    with zipfile.ZipFile(path, "w") as z:
        z.writestr(member("Stats.txt"), stats.encode())
        z.writestr(member("Symbols.txt"), "".join(sym_lines).encode())
        with z.open(member("Callstacks.txt"), "w") as fh:
            for k in range(0, len(lines), 5000):
                fh.write("".join("%.6f %s\r\n" % (counts[sid] * 0.000992 * (1 + 0.1 * ((site(sid, 9) % 100) / 100.0 - 0.5)),
                                                   symbol_ids(sid, stack_of(prog, sampler.stacks[sid], "windows")))
                                 for sid in lines[k:k + 5000]).encode())
        z.writestr(member("Version 0.82 required", zipfile.ZIP_STORED), b"0.82\r\n")


def xml_text(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def write_sysprof(path, size, rng):
    prog = Program(rng, nfuncs_for(size))
    sampler = Sampler(prog, rng)
    # objects: function idx or pseudo name -> object number (assigned in order of appearance)
    objects = {}         # function idx or pseudo key -> object number, in order of appearance
    obj_names = []
    est = [800]          # bytes the XML will take, roughly

    def obj(key, name):
        o = objects.get(key)
        if o is None:
            o = objects[key] = len(obj_names)
            obj_names.append(name)
            est[0] += 127 + len(xml_text(name))
        return o

    everything = obj("everything", "[everything]")
    process = obj("process", "[acme-server]")
    # call tree: node number -> object, parent, self samples, children by object
    node_obj, node_parent, node_self, node_children = [everything, process], [-1, 0], [0, 0], [{}, {}]
    node_children[0][process] = 1
    est[0] += 2 * 300
    paths = {}           # stack id -> its tree node
    while est[0] < size:
        sid, new = sampler.draw()
        leaf = paths.get(sid)
        if leaf is None:
            node = 1
            frames = stack_of(prog, sampler.stacks[sid], "linux")
            for pos, i in enumerate(frames):
                f = prog.funcs[i]
                if pos == len(frames) - 1 and f.mod in ("proto", "ssl", "z") and site(i, sid) % 9 == 0:
                    o = obj(("file", f.mod), "In file " + MODULES[f.mod][0])
                else:
                    o = obj(i, f.gnu)
                child = node_children[node].get(o)
                if child is None:
                    child = len(node_obj)
                    node_obj.append(o)
                    node_parent.append(node)
                    node_self.append(0)
                    node_children.append({})
                    node_children[node][o] = child
                    est[0] += 251 + 4.5 * len(str(child))     # ids grow with the tree
                node = child
            leaf = paths[sid] = node
        node_self[leaf] += 1
    n = len(node_obj)
    total = node_self[:]
    for v in range(n - 1, 0, -1):          # children always have larger numbers than their parent
        total[node_parent[v]] += total[v]
    obj_self = [0] * len(obj_names)
    obj_total = [0] * len(obj_names)
    # pre-order numbering and toplevel flags
    order, toplevel = [], [0] * n
    stack = [(0, ())]
    while stack:
        v, above = stack.pop()
        order.append(v)
        o = node_obj[v]
        obj_self[o] += node_self[v]
        if o not in above:
            toplevel[v] = 1
            obj_total[o] += total[v]
            above = above + (o,)
        for c in reversed(list(node_children[v].values())):
            stack.append((c, above))
    first_obj = 1
    node_id = {v: len(obj_names) + 1 + k for k, v in enumerate(order)}
    out = Out.open(path)
    out.write("<profile>\n    <size>%d</size>\n    <call_tree>%d</call_tree>\n    <objects>\n"
              % (total[0], node_id[0]))
    shuffled = list(range(len(obj_names)))
    rng.shuffle(shuffled)
    for o in shuffled:
        out.write('        <object id="%d">\n            <name>"%s"</name>\n            <total>%d</total>\n'
                  '            <self>%d</self>\n        </object>\n'
                  % (first_obj + o, xml_text(obj_names[o]), obj_total[o], obj_self[o]))
    out.write("    </objects>\n    <nodes>\n")
    for v in order:
        kids = list(node_children[v].values())
        parent = node_parent[v]
        sibs = list(node_children[parent].values()) if parent >= 0 else [v]
        k = sibs.index(v)
        out.write('        <node id="%d">\n            <object>%d</object>\n            <siblings>%d</siblings>\n'
                  '            <children>%d</children>\n            <parent>%d</parent>\n'
                  '            <total>%d</total>\n            <self>%d</self>\n            <toplevel>%d</toplevel>\n'
                  '        </node>\n'
                  % (node_id[v], first_obj + node_obj[v], node_id[sibs[k + 1]] if k + 1 < len(sibs) else 0,
                     node_id[kids[0]] if kids else 0, node_id[parent] if parent >= 0 else 0, total[v],
                     node_self[v], toplevel[v]))
    out.write("    </nodes>\n</profile>\n")
    out.close()


# ---------------------------------------------------------------------------------------------------------
# Call-graph formats (prof, axe): the whole static call graph, times from sampled stacks

class CallGraph:
    """gprof's view of the program: every function with its arcs (call counts), self times from
    samples, and the times propagated to callers along the arcs."""

    def __init__(self, prog, rng, tick, style):
        self.prog = prog
        self.style = style       # which name of a function to print
        funcs = [f for f in prog.funcs if f.level is not None or f in prog.prefix["linux"][0]
                 or f in prog.prefix["linux"][1]]
        self.funcs = funcs
        arcs = {}        # (caller, callee) -> sampled crossings
        for f in funcs:
            for c in f.callees:
                arcs[(f.idx, c.idx)] = 0
            if f.rec:
                arcs[(f.idx, f.idx)] = 0
        for ring in prog.cycles:
            for a, b in zip(ring, ring[1:] + ring[:1]):
                arcs[(a.idx, b.idx)] = 0
        for prefix in prog.prefix["linux"]:
            for a, b in zip(prefix, prefix[1:]):
                arcs[(a.idx, b.idx)] = 0
        arcs[(prog.prefix["linux"][0][-1].idx, prog.main.idx)] = 0
        arcs[(prog.prefix["linux"][1][-1].idx, prog.thread.idx)] = 0
        sampler = Sampler(prog, rng)
        selfticks = {}
        for _ in range(max(2000, 10 * len(funcs))):
            sid, _ = sampler.draw()
            frames = stack_of(prog, sampler.stacks[sid], "linux")
            for a, b in zip(frames, frames[1:]):
                arcs[(a, b)] = arcs.get((a, b), 0) + 1
            selfticks[frames[-1]] = selfticks.get(frames[-1], 0) + 1
        per_call = {f.idx: 10 ** rng.uniform(0.3, 3.5) for f in funcs}
        self.calls = {}
        entry = {f.idx for prefix in prog.prefix["linux"] for f in prefix} | {prog.main.idx, prog.thread.idx}
        for (a, b), n in arcs.items():
            if b in entry:      # the process starts once, its worker threads a few times
                self.calls[(a, b)] = 1 if a in (f.idx for f in prog.prefix["linux"][0]) else 8
            else:
                self.calls[(a, b)] = int(n * per_call[b]) + rng.randint(1, 40)
        self.self_time = {f.idx: selfticks.get(f.idx, 0) * tick for f in funcs}
        self.cycle_of = {}
        for k, ring in enumerate(prog.cycles, 1):
            for f in ring:
                self.cycle_of[f.idx] = k
        self.parents = {f.idx: [] for f in funcs}
        self.children = {f.idx: [] for f in funcs}
        for (a, b) in self.calls:
            self.parents[b].append(a)
            self.children[a].append(b)
        self.propagate()

    def external(self, a, b):
        """True for an arc that gprof propagates time along (not recursive, not inside a cycle)."""
        return a != b and (self.cycle_of.get(a) is None or self.cycle_of.get(a) != self.cycle_of.get(b))

    def unit(self, i):
        k = self.cycle_of.get(i)
        return ("cycle", k) if k else i

    def propagate(self):
        prog = self.prog
        ext_calls = {}    # calls into a function, or into a cycle, from outside it
        for (a, b), n in self.calls.items():
            if self.external(a, b):
                ext_calls[b] = ext_calls.get(b, 0) + n
                if b in self.cycle_of:
                    u = self.unit(b)
                    ext_calls[u] = ext_calls.get(u, 0) + n
        self.ext_calls = ext_calls
        self.child_time = {}
        self.unit_self, self.unit_child = {}, {}
        level = {f.idx: f.level for f in self.funcs if f.level is not None}
        for prefix in prog.prefix["linux"]:
            for k, f in enumerate(prefix):
                level[f.idx] = k - len(prefix)
        for f in sorted(self.funcs, key=lambda f: (-level[f.idx], f.idx)):
            i = f.idx
            ct = 0.0
            for c in self.children[i]:
                if self.external(i, c):
                    ct += self.share(i, c)[2]
            self.child_time[i] = ct
            k = self.cycle_of.get(i)
            if k is None:
                self.unit_self[i], self.unit_child[i] = self.self_time[i], ct
            elif all(g.idx in self.child_time for g in prog.cycles[k - 1]):
                ring = prog.cycles[k - 1]
                self.unit_self[("cycle", k)] = sum(self.self_time[g.idx] for g in ring)
                self.unit_child[("cycle", k)] = sum(self.child_time[g.idx] for g in ring)
        self.grand = sum(self.self_time.values()) or 1.0

    def share(self, a, b):
        """(self part, children part, sum) of b's time that the arc a -> b hands to a."""
        u = self.unit(b)
        frac = self.calls[(a, b)] / self.ext_calls[u]
        s, c = self.unit_self[u] * frac, self.unit_child[u] * frac
        return s, c, s + c

    def called(self, i):
        """(calls from outside + from the ring, self calls)"""
        n = sum(self.calls[(p, i)] for p in self.parents[i] if p != i)
        return n, self.calls.get((i, i), 0)

    def entries(self):
        """Functions and cycles in gprof's order (by total time), as (key, total)."""
        items = [(f.idx, self.self_time[f.idx] + self.child_time[f.idx]) for f in self.funcs]
        items += [(("cycle", k), self.unit_self[("cycle", k)] + self.unit_child[("cycle", k)])
                  for k in range(1, len(self.prog.cycles) + 1)]
        items.sort(key=lambda it: (-it[1], self.sort_name(it[0])))
        return items

    def sort_name(self, key):
        return "<cycle %d>" % key[1] if isinstance(key, tuple) else getattr(self.prog.funcs[key], self.style)

    def label(self, i):
        k = self.cycle_of.get(i)
        return getattr(self.prog.funcs[i], self.style) + (" <cycle %d>" % k if k else "")


def write_sized(render, path, size, seed, per_func):
    """Call-graph formats grow with the number of functions: render once with a guess, then with
    the count that the measured bytes per function give (a third time if still more than 3% off)."""
    n = max(100, int(size / per_func))
    for attempt in range(3):
        with open(path, "w", encoding="utf-8") as f:
            out = Out(f)
            render(out, n, seed)
        if abs(out.n - size) < 0.03 * size or n <= 100:
            break
        n = max(100, int(n * size / out.n))


def write_prof(path, size, seed):
    write_sized(render_prof, path, size, seed, 1400)


def render_prof(out, nfuncs, seed):
    rng = random.Random(seed)
    prog = Program(rng, nfuncs)
    g = CallGraph(prog, rng, 0.01, "gnu")
    entries = g.entries()
    index = {key: k for k, (key, _) in enumerate(entries, 1)}
    w = out.write
    # flat profile
    w("Flat profile:\n\nEach sample counts as 0.01 seconds.\n")
    w("  %   cumulative   self              self     total           \n")
    w(" time   seconds   seconds    calls  ms/call  ms/call  name    \n")
    cum = 0.0
    for f in sorted(g.funcs, key=lambda f: (-g.self_time[f.idx], -g.called(f.idx)[0], f.gnu)):
        i = f.idx
        st = g.self_time[i]
        cum += st
        ncalls = sum(g.called(i))
        tot = st + g.child_time[i]
        if ncalls:
            w("%6.2f %9.2f %8.2f %8d %8.2f %8.2f  %s\n" % (100 * st / g.grand, cum, st, ncalls,
                                                          1000 * st / ncalls, 1000 * tot / ncalls, f.gnu))
        else:
            w("%6.2f %9.2f %8.2f %26s %s\n" % (100 * st / g.grand, cum, st, "", f.gnu))
    w("\n %         the percentage of the total running time of the\ntime       program used by this function.\n")
    w("\f\n\t\t     Call graph (explanation follows)\n\n\n")
    w("granularity: each sample hit covers 4 byte(s) for %.2f%% of %.2f seconds\n\n"
      % (100 * 0.01 / g.grand, g.grand))
    w("index % time    self  children    called     name\n")
    blank = " " * 28          # where a count-only (recursive or intra-cycle) arc line puts its count

    for key, tot in entries:
        tag = "[%d]" % index[key]
        if isinstance(key, tuple):
            k = key[1]
            ring = prog.cycles[k - 1]
            ext = g.ext_calls.get(key, 0)
            inner = sum(g.calls.get((a.idx, b.idx), 0) for a in ring for b in ring if a is not b)
            w("%-6s %5.1f %7.2f %7.2f %7d+%-7d <cycle %d as a whole> %s\n"
              % (tag, 100 * tot / g.grand, g.unit_self[key], g.unit_child[key], ext, inner, k, tag))
            for f in sorted(ring, key=lambda f: -(g.self_time[f.idx] + g.child_time[f.idx])):
                w("%6.6s %5.5s %7.2f %7.2f %7d %7.7s     %s [%d]\n" % ("", "", g.self_time[f.idx], g.child_time[f.idx],
                                                                     g.called(f.idx)[0], "", g.label(f.idx), index[f.idx]))
            w("-" * 47 + "\n")
            continue
        i = key
        parents = g.parents[i]
        ncalled, nself = g.called(i)
        if not parents:
            w("%6.6s %5.5s %7.7s %7.7s %7.7s %7.7s     <spontaneous>\n" % ("", "", "", "", "", ""))
        if nself:
            w("%s %7d %7.7s     %s [%d]\n" % (blank, nself, "", g.label(i), index[i]))
        inner = [p for p in parents if p != i and not g.external(p, i)]
        for p in inner:
            w("%s %7d %7.7s     %s [%d]\n" % (blank, g.calls[(p, i)], "", g.label(p), index[p]))
        ext = g.ext_calls.get(i, 0)
        for p in sorted((p for p in parents if g.external(p, i)), key=lambda p: (g.share(p, i)[2], index[p])):
            s, c, _ = g.share(p, i)
            w("%6.6s %5.5s %7.2f %7.2f %7d/%-7d     %s [%d]\n" % ("", "", s, c, g.calls[(p, i)], ext, g.label(p), index[p]))
        if ncalled or nself:
            called = "%7d+%-7d " % (ncalled, nself) if nself else "%7d %7.7s " % (ncalled, "")
        else:
            called = "%7.7s %7.7s " % ("", "")
        w("%-6s %5.1f %7.2f %7.2f %s%s %s\n" % (tag, 100 * tot / g.grand, g.self_time[i], g.child_time[i],
                                                   called, g.label(i), tag))
        kids = g.children[i]
        for c in sorted((c for c in kids if g.external(i, c)), key=lambda c: (-g.share(i, c)[2], index[c])):
            s, t, _ = g.share(i, c)
            u = g.unit(c)
            w("%6.6s %5.5s %7.2f %7.2f %7d/%-7d     %s [%d]\n" % ("", "", s, t, g.calls[(i, c)],
                                                             g.ext_calls[u], g.label(c), index[c]))
        for c in kids:
            if c != i and not g.external(i, c):
                w("%s %7d %7.7s     %s [%d]\n" % (blank, g.calls[(i, c)], "", g.label(c), index[c]))
        if nself:
            w("%s %7d %7.7s     %s [%d]\n" % (blank, nself, "", g.label(i), index[i]))
        w("-" * 47 + "\n")
    w("\n This table describes the call tree of the program, and was sorted by\n"
      " the total amount of time spent in each function and its children.\n\n")
    w("\f\nIndex by function name\n\n")
    names = sorted(((g.sort_name(key), index[key]) for key, _ in entries))
    for k in range(0, len(names), 3):
        w("".join("%6s %-22s" % ("[%d]" % idx, name) for name, idx in names[k:k + 3]).rstrip() + "\n")


def axe_num(x, digits=3):
    s = "%.*f" % (digits, x)
    s = s.rstrip("0")
    return s + "0" if s.endswith(".") else s


def write_axe(path, size, seed):
    write_sized(render_axe, path, size, seed, 1800)


def render_axe(out, nfuncs, seed):
    rng = random.Random(seed)
    prog = Program(rng, nfuncs)
    g = CallGraph(prog, rng, 0.001, "short")
    entries = [("spontaneous", g.grand)] + g.entries()
    index = {key: k for k, (key, _) in enumerate(entries)}
    # the name column fits the names, up to 120 characters; longer names push the index out
    width = min(120, max(len(g.label(f.idx)) for f in g.funcs) + 5)
    w = out.write
    w("%-8s%-18s%-15s%-19s%-*s%s\n" % ("Index", "% CPU Time:Total", "CPU Time:Self", "CPU Time:Children",
                                       width, "Name", "Index"))
    w("%-8s%-18s%-15s%-19s%-*s%s\n" % ("------", "-" * 16, "-" * 13, "-" * 17, width, "-" * (width - 2), "------"))
    sep = " " * (60 + width) + "\n"

    def line(s, c, name, idx):
        return "%-8s%-18s%-15s%-19s  %-*s  [%d]\n" % ("", "", "" if s is None else axe_num(s),
                                                   "" if c is None else axe_num(c), width - 4, name, idx)

    roots = [i for i in (f.idx for f in g.funcs) if not g.parents[i]]
    w("%-8s%-18s%-15s%-19s%-*s  [0]\n" % ("[0]", "100.0", "0.0", axe_num(g.grand), width - 2, "<spontaneous>"))
    for r in roots:
        w(line(g.self_time[r], g.child_time[r], g.label(r), index[r]))
    w(sep)
    for key, tot in entries[1:]:
        tag = "[%d]" % index[key]
        pct = axe_num(100 * tot / g.grand, 2)
        if isinstance(key, tuple):
            k = key[1]
            ring = prog.cycles[k - 1]
            members = [f.idx for f in ring]
            for p in sorted({p for m in members for p in g.parents[m] if g.external(p, m)}):
                s = sum(g.share(p, m)[0] for m in members if (p, m) in g.calls)
                c = sum(g.share(p, m)[1] for m in members if (p, m) in g.calls)
                w(line(s, c, g.label(p), index[p]))
            w("%-8s%-18s%-15s%-19s%-*s  %s\n" % (tag, pct, axe_num(g.unit_self[key]), axe_num(g.unit_child[key]),
                                                 width - 2, "<cycle %d as a whole>" % k, tag))
            for m in members:
                w(line(g.self_time[m], g.child_time[m], g.label(m), index[m]))
            w(sep)
            continue
        i = key
        if not g.parents[i]:
            w(line(0.0, g.self_time[i] + g.child_time[i], "<spontaneous>", 0))
        for p in sorted(g.parents[i], key=lambda p: (g.share(p, i)[2] if g.external(p, i) else -1, index[p])):
            if g.external(p, i):
                s, c, _ = g.share(p, i)
                w(line(s, c, g.label(p), index[p]))
            else:
                w(line(None, None, g.label(p), index[p]))
        w("%-8s%-18s%-15s%-19s%-*s  %s\n" % (tag, pct, axe_num(g.self_time[i]), axe_num(g.child_time[i]),
                                             width - 2, g.label(i), tag))
        for c in sorted(g.children[i], key=lambda c: (-g.share(i, c)[2] if g.external(i, c) else 1, index[c])):
            if g.external(i, c):
                s, t, _ = g.share(i, c)
                w(line(s, t, g.label(c), index[c]))
            else:
                w(line(None, None, g.label(c), index[c]))
        w(sep)
    w("\n\nIndex by function name\n\nIndex   Function\n------  %s\n" % ("-" * (width - 2)))
    for name, idx in sorted((g.sort_name(key) if key != "spontaneous" else "<spontaneous>", index[key])
                            for key, _ in entries):
        w("%-8s%s\n" % ("[%d]" % idx, name))


# ---------------------------------------------------------------------------------------------------------

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("format", choices=FORMATS)
    ap.add_argument("out")
    ap.add_argument("size_mb", type=float)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    size = int(args.size_mb * MB)
    if args.format == "prof":
        write_prof(args.out, size, args.seed)
    elif args.format == "axe":
        write_axe(args.out, size, args.seed)
    else:
        rng = random.Random(args.seed)
        globals()["write_" + args.format](args.out, size, rng)
    got = os.path.getsize(args.out)
    sys.stderr.write("%s: %.2f MB (asked %.2f MB)\n" % (args.out, got / MB, size / MB))


if __name__ == "__main__":
    main()
