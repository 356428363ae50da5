/*
 * figures.cpp -- nvcc's figures for each kernel, as a table the emulator compiles in. See
 * figures.h.
 */
#include "figures.h"

#include <elf.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <sstream>

namespace emu_rewrite {

namespace {

/* No figure of a real kernel comes near this: a larger number in a log is not one. */
constexpr long kFigureMax = 1L << 30;

/* Whether S can be a kernel's symbol: a C identifier of at most 4096 characters (nvcc's
 * mangled names and extern "C" names both are). Anything else in a log is left out, so nothing
 * of it reaches the generated C++ but identifiers and numbers. */
bool is_symbol(const std::string &s)
{
    if (s.empty() || s.size() > 4096 || isdigit((unsigned char)s[0]))
        return false;
    for (char c : s)
        if (!isalnum((unsigned char)c) && c != '_')
            return false;
    return true;
}

/* The number at the start of S (after blanks), at most kFigureMax; -1 when there is none. */
long leading_number(const std::string &s)
{
    size_t i = s.find_first_not_of(" \t");
    if (i == std::string::npos || !isdigit((unsigned char)s[i]))
        return -1;
    long v = 0;
    for (; i < s.size() && isdigit((unsigned char)s[i]); ++i)
        v = std::min(kFigureMax, v * 10 + (s[i] - '0'));
    return v;
}

bool starts_with(const std::string &s, const char *prefix)
{
    return s.compare(0, strlen(prefix), prefix) == 0;
}

bool ends_with(const std::string &s, const char *suffix)
{
    const size_t n = strlen(suffix);
    return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

std::string trimmed(const std::string &s)
{
    const size_t b = s.find_first_not_of(" \t\r");
    if (b == std::string::npos)
        return "";
    return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

/* One "Used ..." line's items ("Used 40 registers", "used 1 barriers", "1024 bytes smem",
 * "256 bytes cumulative stack size"; ptxas prints the ones that apply, in an order that has
 * changed between releases) into K; *CUMULATIVE: the stack size with calls, or -1. */
void read_usage(const std::string &items, KernelFigures *k, long *cumulative)
{
    std::istringstream in(items);
    std::string item;
    while (std::getline(in, item, ',')) {
        item = trimmed(item);
        if (starts_with(item, "Used ") || starts_with(item, "used "))
            item = item.substr(5);
        const long v = leading_number(item);
        if (v < 0)
            continue;
        if (ends_with(item, " registers"))
            k->registers = (int)std::min(v, 255L);
        else if (ends_with(item, " barriers"))
            k->barriers = (int)std::min(v, 16L);
        else if (ends_with(item, " bytes smem"))
            k->shared = v;
        else if (ends_with(item, " bytes cumulative stack size"))
            *cumulative = v;
    }
}

/* The product of the numbers of a ".maxntid 256, 1, 1" line after its directive. */
long thread_count(const std::string &numbers)
{
    std::istringstream in(numbers);
    std::string n;
    long product = 1;
    int seen = 0;
    while (std::getline(in, n, ',') && seen < 3) {
        const long v = leading_number(n);
        if (v <= 0)
            return 0;
        product = std::min(kFigureMax, product * v);
        ++seen;
    }
    return seen > 0 ? product : 0;
}

/* The kernels of ptxas's log, in the order it compiled them, with their registers, barriers,
 * static shared memory and stack. */
std::vector<KernelFigures> read_log(const std::string &ptxas_log)
{
    std::vector<KernelFigures> kernels;
    std::map<std::string, size_t> index;    /* name -> its place in kernels */
    std::map<std::string, long> frame;      /* function -> its own stack frame */
    std::map<std::string, long> cumulative; /* entry -> its stack size with calls */
    std::string properties_of;              /* the function of the last "Function properties" */
    long current = -1;                      /* the entry being compiled */
    std::istringstream log(ptxas_log);
    for (std::string line; std::getline(log, line);) {
        size_t at;
        if ((at = line.find("Compiling entry function '")) != std::string::npos) {
            at += strlen("Compiling entry function '");
            const std::string name = line.substr(at, line.find('\'', at) - at);
            current = -1;
            if (!is_symbol(name))
                continue;
            if (!index.count(name)) {
                index[name] = kernels.size();
                kernels.push_back(KernelFigures{});
                kernels.back().name = name;
            }
            current = (long)index[name];
        } else if ((at = line.find("Function properties for ")) != std::string::npos) {
            properties_of = trimmed(line.substr(at + strlen("Function properties for ")));
        } else if (ends_with(trimmed(line.substr(0, line.find(','))), "bytes stack frame")) {
            if (leading_number(line) >= 0 && !properties_of.empty())
                frame[properties_of] = leading_number(line);
        } else if ((at = line.find(": Used ")) != std::string::npos && current >= 0) {
            long with_calls = -1;
            read_usage(line.substr(at + 2), &kernels[current], &with_calls);
            if (with_calls >= 0)
                cumulative[kernels[current].name] = with_calls;
        }
    }
    for (KernelFigures &k : kernels)
        k.stack = cumulative.count(k.name) ? cumulative[k.name] : frame.count(k.name) ? frame[k.name] : 0;
    return kernels;
}

/* What the PTX says of KERNELS: each entry's linkage, and the block size its __launch_bounds__
 * allow (the directives between its parameters and its body). */
void read_ptx(const std::string &ptx, std::vector<KernelFigures> *kernels)
{
    std::map<std::string, KernelFigures *> by_name;
    for (KernelFigures &k : *kernels)
        by_name[k.name] = &k;
    std::istringstream in(ptx);
    KernelFigures *entry = nullptr;
    for (std::string line; std::getline(in, line);) {
        line = trimmed(line);
        const bool visible = starts_with(line, ".visible .entry ") || starts_with(line, ".weak .entry ");
        if (visible || starts_with(line, ".entry ")) {
            const std::string rest = line.substr(line.find(".entry ") + strlen(".entry "));
            const std::string name = rest.substr(0, rest.find_first_of("( \t"));
            auto it = by_name.find(name);
            entry = it == by_name.end() ? nullptr : it->second;
            if (entry != nullptr)
                entry->visible = visible;
        } else if (entry != nullptr && (starts_with(line, ".maxntid ") || starts_with(line, ".reqntid "))) {
            entry->max_threads = (int)std::min(thread_count(line.substr(9)), 1L << 20);
        } else if (starts_with(line, "{")) {
            entry = nullptr; /* the body: the declaration's directives are over */
        }
    }
}

} // namespace

std::vector<KernelFigures> parse_figures(const std::string &ptxas_log, const std::string &ptx)
{
    std::vector<KernelFigures> kernels = read_log(ptxas_log);
    read_ptx(ptx, &kernels);
    return kernels;
}

long cubin_constant_bytes(const std::string &cubin)
{
    Elf64_Ehdr h;
    if (cubin.size() < sizeof h)
        return 0;
    memcpy(&h, cubin.data(), sizeof h);
    if (memcmp(h.e_ident, ELFMAG, SELFMAG) != 0 || h.e_ident[EI_CLASS] != ELFCLASS64 ||
        h.e_shentsize != sizeof(Elf64_Shdr) || h.e_shstrndx >= h.e_shnum ||
        h.e_shoff > cubin.size() || (cubin.size() - h.e_shoff) / sizeof(Elf64_Shdr) < h.e_shnum)
        return 0;
    auto section = [&](unsigned i) {
        Elf64_Shdr s;
        memcpy(&s, cubin.data() + h.e_shoff + (size_t)i * sizeof s, sizeof s);
        return s;
    };
    const Elf64_Shdr names = section(h.e_shstrndx);
    if (names.sh_offset > cubin.size() || cubin.size() - names.sh_offset < names.sh_size)
        return 0;
    const std::string strings = cubin.substr(names.sh_offset, names.sh_size);
    for (unsigned i = 0; i < h.e_shnum; ++i) {
        const Elf64_Shdr s = section(i);
        if (s.sh_name < strings.size() && strcmp(strings.c_str() + s.sh_name, ".nv.constant3") == 0)
            return (long)std::min<uint64_t>(s.sh_size, kFigureMax);
    }
    return 0;
}

namespace {

/* NAME with every anonymous namespace nvcc names "_GLOBAL__N__<hash>_<file>..." written as g++
 * writes it, "_GLOBAL__N_1". The length before the name is read shortest first, since the name
 * before it may end in a digit ("2v235_GLOBAL__N_...": the namespace v2, then 35 characters). */
std::string gxx_anonymous(std::string name)
{
    static const std::string anon = "_GLOBAL__N_";
    for (size_t at = name.find(anon); at != std::string::npos; at = name.find(anon, at + 1)) {
        size_t digits = at;
        while (digits > 0 && isdigit((unsigned char)name[digits - 1]))
            --digits;
        for (size_t from = at; from-- > digits;) {
            const long len = leading_number(name.substr(from, at - from));
            if (len >= (long)anon.size() && at + len <= name.size()) {
                name = name.substr(0, from) + "12_GLOBAL__N_1" + name.substr(at + len);
                at = from + 2;
                break;
            }
        }
    }
    return name;
}

/* NAME as g++ spells a function of internal linkage ("static"): "L" before its own source name
 * (_Z2stPd -> _ZL2stPd, _ZN2ns2stEPd -> _ZN2nsL2stEPd), but for a template's instance at global
 * scope, which g++ spells as nvcc does (_Z2gtILi3EEvPf); "" when NAME is no such mangled name. */
std::string gxx_static(const std::string &name)
{
    if (!starts_with(name, "_Z") || name.size() < 3)
        return "";
    if (isdigit((unsigned char)name[2])) {
        size_t j = 2;
        long len = 0;
        while (j < name.size() && isdigit((unsigned char)name[j]))
            len = std::min(kFigureMax, len * 10 + (name[j++] - '0'));
        const bool instance = (size_t)len < name.size() - j && name[j + len] == 'I';
        return instance ? name : "_ZL" + name.substr(2);
    }
    if (name[2] != 'N')
        return "";
    size_t i = 3, last = std::string::npos;
    while (i < name.size() && strchr("rVKRO", name[i]) != nullptr)
        ++i;
    while (i < name.size() && isdigit((unsigned char)name[i])) {
        size_t j = i;
        long len = 0;
        while (j < name.size() && isdigit((unsigned char)name[j]))
            len = std::min(kFigureMax, len * 10 + (name[j++] - '0'));
        if (len <= 0 || (size_t)len > name.size() - j)
            return "";
        last = i;
        i = j + len;
    }
    return last == std::string::npos ? "" : name.substr(0, last) + "L" + name.substr(last);
}

} // namespace

std::vector<std::string> gxx_symbols(const std::string &name, bool visible)
{
    /* External names agree between the two compilers (the Itanium C++ ABI); trying the internal
     * spellings on them could bind another file's function of that name. */
    if (visible || !starts_with(name, "_Z"))
        return {name};
    std::vector<std::string> out;
    const std::string anon = gxx_anonymous(name);
    if (anon != name)
        out.push_back(anon);
    const std::string local = gxx_static(anon);
    if (!local.empty() && (local != anon || anon == name))
        out.push_back(local);
    return out;
}

std::string figures_table(const std::vector<KernelFigures> &kernels, long constant_bytes)
{
    std::ostringstream refs, rows;
    int n = 0;
    for (const KernelFigures &k : kernels)
        for (const std::string &symbol : gxx_symbols(k.name, k.visible)) {
            if (!is_symbol(symbol))
                continue;
            refs << "static void cuda_emu_figure_" << n << "() __attribute__((weakref(\"" << symbol
                 << "\")));\n";
            rows << "    {(const void *)&cuda_emu_figure_" << n << ", " << k.registers << ", "
                 << k.barriers << ", " << k.shared << ", " << k.stack << ", " << constant_bytes
                 << ", " << k.max_threads << "},\n";
            ++n;
        }
    if (n == 0)
        return "";
    std::ostringstream out;
    out << "\n#line 1 \"emu-nvcc: nvcc's figures\"\n"
        << "/* What nvcc's build of this file for the emulated device says each kernel uses\n"
        << " * (common/emu/rewrite/figures.h): a weak reference to each symbol g++ may give it,\n"
        << " * null where g++ gave it none, and the figures. */\n"
        << "#pragma GCC diagnostic push\n"
        << "#pragma GCC diagnostic ignored \"-Wattribute-alias\"\n"
        << refs.str()
        << "static const ::cuda_emu::KernelResources cuda_emu_figures[] = {\n"
        << rows.str() << "};\n"
        << "#pragma GCC diagnostic pop\n"
        << "[[maybe_unused]] static const bool cuda_emu_figures_noted =\n"
        << "    ::cuda_emu::register_kernel_resources(cuda_emu_figures, " << n << ");\n";
    return out.str();
}

} // namespace emu_rewrite
