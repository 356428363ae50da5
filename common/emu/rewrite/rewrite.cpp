/*
 * rewrite.cpp -- the source rewrite described in rewrite.h.
 *
 * A first pass classifies every byte as code, comment or literal and marks
 * preprocessor directive lines; everything after works on code bytes only,
 * so "<<<" in a string or a commented-out __shared__ is left alone. A second
 * pass walks the code once, keeping a stack of braces (to tell file scope
 * from function scope), and collects edits; they are applied at the end.
 * Each edit keeps the newlines of the text it replaces, so lines stay put.
 */
#include "rewrite.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>
#include <vector>

namespace emu_rewrite {

namespace {

constexpr size_t npos = std::string::npos;

enum ByteKind : uint8_t { code, comment, literal };

bool ident_char(char c) { return std::isalnum((unsigned char)c) || c == '_'; }

struct Edit {
    size_t begin;            /* first byte replaced */
    size_t end;              /* one past the last (== begin for an insertion) */
    std::string replacement; /* what goes there */
};

class Rewriter {
  public:
    Rewriter(const std::string &text, const std::string &path, const IncludeMapper &includes)
        : s_(text), path_(path), includes_(includes), kind_(text.size(), code),
          directive_(text.size(), 0)
    {
        lex();
    }

    bool run(std::string *error);
    std::string apply() const;

  private:
    /* ---- First pass ---------------------------------------------------- */
    void lex();
    size_t lex_literal(size_t i);

    /* ---- Navigation over code bytes ------------------------------------- */
    bool is_code(size_t i) const { return i < s_.size() && kind_[i] == code; }
    bool code_at(size_t i, const char *token) const;
    size_t skip_space(size_t i) const;      /* forward to the next code non-space byte */
    size_t skip_space_back(size_t end) const; /* back over space and comments; returns an end */
    size_t ident_begin(size_t end) const;   /* start of the identifier ending at END */
    size_t ident_end(size_t i) const;       /* end of the identifier starting at I */
    size_t match_forward(size_t i) const;   /* closer matching the opener at I */
    size_t match_backward(size_t i) const;  /* opener matching the closer at I */
    size_t match_angle_backward(size_t i) const;
    size_t line_of(size_t i) const;
    size_t directive_end(size_t i) const;   /* the newline ending the directive at I */
    std::string flatten(size_t begin, size_t end) const; /* code text on one line */
    size_t newlines(size_t begin, size_t end) const;

    /* ---- Second pass ------------------------------------------------------ */
    bool fail(size_t at, const std::string &message);
    bool handle_directive(size_t hash, size_t *next);
    bool handle_launch(size_t at, size_t *next);
    size_t callee_begin(size_t end) const;
    bool handle_shared(size_t at, size_t *next);
    bool handle_launch_bounds(size_t at, size_t *next);
    bool at_file_scope() const;
    void open_brace(size_t at);
    int declares_device(size_t brace) const;
    std::string kernel_name(size_t brace) const;
    bool shift_is_safe(size_t at) const;
    bool handle_asm(size_t at, size_t *next);
    void handle_shift(size_t at, size_t *next);
    bool declares_constexpr(size_t brace) const;
    bool looks_like_declaration(size_t begin, size_t end) const;
    void handle_branch(size_t at, const std::string &word);
    void collect_kernel_names();
    size_t void_ptr_type_end(size_t i, char close) const;
    size_t kernel_operand_end(size_t i) const;
    void handle_void_cast(size_t at);
    void handle_reinterpret_cast(size_t at);

    const std::string &s_;
    const std::string &path_;
    const IncludeMapper &includes_;
    std::vector<uint8_t> kind_;      /* ByteKind of every byte */
    std::vector<uint8_t> directive_; /* 1 for bytes of a preprocessor directive */
    std::vector<bool> scopes_;       /* open braces: true for namespace / extern "C" */
    std::vector<bool> device_;       /* open braces: inside a __device__/__global__ function */
    std::vector<bool> constexpr_;    /* open braces: inside a constexpr or consteval function,
                                        whose branches must stay constant expressions */
    std::vector<std::string> kernels_; /* open braces: the kernel to register when it closes */
    std::vector<std::string> bounds_;  /* open braces: that kernel's __launch_bounds__ arguments */
    std::string pending_bounds_;       /* __launch_bounds__ arguments of the definition whose
                                          body opens next */
    std::vector<std::string> kernel_names_; /* every name the file declares __global__ */
    std::vector<Edit> edits_;
    std::string error_;
    unsigned counter_ = 0;           /* makes generated names unique in the file */
};

/* ---- First pass ----------------------------------------------------------- */

void Rewriter::lex()
{
    const size_t n = s_.size();
    bool line_start = true;   /* only blanks since the last newline */
    bool in_directive = false;
    for (size_t i = 0; i < n;) {
        char c = s_[i];
        if (c == '\n') {
            size_t k = i;
            while (k > 0 && s_[k - 1] == '\r')
                --k;
            if (!(in_directive && k > 0 && s_[k - 1] == '\\'))
                in_directive = false;
            directive_[i] = in_directive;
            line_start = true;
            ++i;
            continue;
        }
        if (c == '/' && i + 1 < n && s_[i + 1] == '/') {
            while (i < n && !(s_[i] == '\n' && s_[i - 1] != '\\')) {
                kind_[i] = comment;
                directive_[i] = in_directive;
                ++i;
            }
            continue;
        }
        if (c == '/' && i + 1 < n && s_[i + 1] == '*') {
            size_t close = s_.find("*/", i + 2);
            size_t stop = close == npos ? n : close + 2;
            for (; i < stop; ++i) {
                kind_[i] = comment;
                directive_[i] = in_directive;
            }
            continue;
        }
        if (c == '"' || c == '\'') {
            size_t stop = lex_literal(i);
            if (stop != i) {
                for (; i < stop; ++i) {
                    kind_[i] = literal;
                    directive_[i] = in_directive;
                }
                line_start = false;
                continue;
            }
        }
        if (line_start && c == '#')
            in_directive = true;
        if (!std::isspace((unsigned char)c))
            line_start = false;
        directive_[i] = in_directive;
        ++i;
    }
}

/* The end of the string or character literal whose quote is at I, or I if
 * the quote does not start one (a digit separator: 1'000'000). */
size_t Rewriter::lex_literal(size_t i)
{
    const size_t n = s_.size();
    size_t word = i;
    while (word > 0 && (ident_char(s_[word - 1]) || s_[word - 1] == '.' || s_[word - 1] == '\''))
        --word;
    if (s_[i] == '\'' && word < i && std::isdigit((unsigned char)s_[word]))
        return i; /* digit separator */
    std::string prefix = s_.substr(word, i - word);
    if (s_[i] == '"' && !prefix.empty() && prefix.back() == 'R' &&
        (prefix == "R" || prefix == "u8R" || prefix == "uR" || prefix == "UR" || prefix == "LR")) {
        size_t open = s_.find('(', i + 1);
        if (open == npos)
            return n;
        std::string close = ")" + s_.substr(i + 1, open - i - 1) + "\"";
        size_t end = s_.find(close, open + 1);
        return end == npos ? n : end + close.size();
    }
    char quote = s_[i];
    for (size_t j = i + 1; j < n; ++j) {
        if (s_[j] == '\\') {
            ++j;
            continue;
        }
        if (s_[j] == quote || s_[j] == '\n')
            return j + 1;
    }
    return n;
}

/* ---- Navigation ----------------------------------------------------------- */

bool Rewriter::code_at(size_t i, const char *token) const
{
    for (size_t k = 0; token[k] != '\0'; ++k)
        if (!is_code(i + k) || s_[i + k] != token[k])
            return false;
    return true;
}

size_t Rewriter::skip_space(size_t i) const
{
    while (i < s_.size() && (kind_[i] == comment || std::isspace((unsigned char)s_[i])))
        ++i;
    return i;
}

size_t Rewriter::skip_space_back(size_t end) const
{
    while (end > 0 && (kind_[end - 1] == comment || std::isspace((unsigned char)s_[end - 1])))
        --end;
    return end;
}

size_t Rewriter::ident_begin(size_t end) const
{
    while (end > 0 && is_code(end - 1) && ident_char(s_[end - 1]))
        --end;
    return end;
}

size_t Rewriter::ident_end(size_t i) const
{
    while (is_code(i) && ident_char(s_[i]))
        ++i;
    return i;
}

size_t Rewriter::match_forward(size_t i) const
{
    std::string stack;
    for (size_t j = i; j < s_.size(); ++j) {
        if (!is_code(j))
            continue;
        char c = s_[j];
        if (c == '(' || c == '[' || c == '{') {
            stack.push_back(c == '(' ? ')' : c == '[' ? ']' : '}');
        } else if (c == ')' || c == ']' || c == '}') {
            if (stack.empty() || stack.back() != c)
                return npos;
            stack.pop_back();
            if (stack.empty())
                return j;
        }
    }
    return npos;
}

size_t Rewriter::match_backward(size_t i) const
{
    std::string stack;
    for (size_t j = i + 1; j-- > 0;) {
        if (!is_code(j))
            continue;
        char c = s_[j];
        if (c == ')' || c == ']' || c == '}') {
            stack.push_back(c == ')' ? '(' : c == ']' ? '[' : '{');
        } else if (c == '(' || c == '[' || c == '{') {
            if (stack.empty() || stack.back() != c)
                return npos;
            stack.pop_back();
            if (stack.empty())
                return j;
        }
    }
    return npos;
}

/* The '<' that opens the template argument list closed by the '>' at I. */
size_t Rewriter::match_angle_backward(size_t i) const
{
    int depth = 0;
    for (size_t j = i + 1; j-- > 0;) {
        if (!is_code(j))
            continue;
        char c = s_[j];
        if (c == '>') {
            ++depth;
        } else if (c == '<') {
            if (--depth == 0)
                return j;
        } else if (c == ')' || c == ']') {
            j = match_backward(j);
            if (j == npos)
                return npos;
        } else if (c == ';' || c == '{' || c == '}') {
            return npos;
        }
    }
    return npos;
}

size_t Rewriter::line_of(size_t i) const
{
    return 1 + (size_t)std::count(s_.begin(), s_.begin() + (long)std::min(i, s_.size()), '\n');
}

size_t Rewriter::directive_end(size_t i) const
{
    while (i < s_.size() && !(s_[i] == '\n' && !directive_[i]))
        ++i;
    return i;
}

std::string Rewriter::flatten(size_t begin, size_t end) const
{
    std::string out;
    bool space = false;
    for (size_t i = begin; i < end; ++i) {
        bool blank = kind_[i] == comment || std::isspace((unsigned char)s_[i]) ||
                     (s_[i] == '\\' && i + 1 < end && s_[i + 1] == '\n');
        if (blank) {
            space = !out.empty();
            continue;
        }
        if (space)
            out += ' ';
        space = false;
        out += s_[i];
    }
    return out;
}

size_t Rewriter::newlines(size_t begin, size_t end) const
{
    return (size_t)std::count(s_.begin() + (long)begin, s_.begin() + (long)end, '\n');
}

/* TEXT as a C string literal. */
std::string quoted(const std::string &text)
{
    std::string out = "\"";
    for (char c : text) {
        if (c == '"' || c == '\\')
            out += '\\';
        out += c;
    }
    return out + "\"";
}

/* ---- Second pass ----------------------------------------------------------- */

bool Rewriter::fail(size_t at, const std::string &message)
{
    error_ = path_ + ":" + std::to_string(line_of(at)) + ": error: " + message;
    return false;
}

bool Rewriter::at_file_scope() const
{
    return std::all_of(scopes_.begin(), scopes_.end(), [](bool ns) { return ns; });
}

/* Pushes the brace at AT: a namespace or extern "C" body, or anything else
 * (function bodies, classes, initialisers). */
void Rewriter::open_brace(size_t at)
{
    size_t end = skip_space_back(at);
    bool ns = false;
    if (end > 0 && kind_[end - 1] == literal) {
        size_t begin = end;
        while (begin > 0 && kind_[begin - 1] == literal)
            --begin;
        size_t before = skip_space_back(begin);
        ns = s_.compare(ident_begin(before), before - ident_begin(before), "extern") == 0;
    } else {
        /* namespace, namespace x, namespace x::y, inline namespace x */
        while (end > 0 && is_code(end - 1) && ident_char(s_[end - 1])) {
            size_t begin = ident_begin(end);
            if (s_.compare(begin, end - begin, "namespace") == 0) {
                ns = true;
                break;
            }
            end = skip_space_back(begin);
            if (end >= 2 && s_[end - 1] == ':' && s_[end - 2] == ':')
                end = skip_space_back(end - 2);
        }
    }
    bool file_scope = at_file_scope();
    int kind = ns ? 0 : declares_device(at);
    scopes_.push_back(ns);
    device_.push_back((!device_.empty() && device_.back()) || kind != 0);
    constexpr_.push_back((!constexpr_.empty() && constexpr_.back()) ||
                         (!ns && declares_constexpr(at)));
    kernels_.push_back(kind == 2 && file_scope ? kernel_name(at) : std::string());
    bounds_.push_back(kernels_.back().empty() ? std::string() : pending_bounds_);
    pending_bounds_.clear();
}

/* What the declaration that the brace at BRACE opens the body of (a function,
 * a lambda, an initializer) says, in the text back to the previous ; { } or
 * directive at its level: 0 neither __device__ nor __global__, 1 __device__,
 * 2 __global__ and not a template, 3 a __global__ template. */
int Rewriter::declares_device(size_t brace) const
{
    int kind = 0;
    for (size_t j = brace; j-- > 0;) {
        if (directive_[j])
            break;
        if (!is_code(j))
            continue;
        char c = s_[j];
        if (c == ')' || c == ']') {
            j = match_backward(j);
            if (j == npos)
                break;
            continue;
        }
        if (c == '>' && kind == 2) {
            size_t open = match_angle_backward(j);
            if (open != npos) {
                size_t w = skip_space_back(open);
                if (s_.compare(ident_begin(w), w - ident_begin(w), "template") == 0)
                    return 3;
                j = open;
                continue;
            }
        }
        if (c == ';' || c == '{' || c == '}')
            break;
        if (ident_char(c)) {
            size_t b = ident_begin(j + 1);
            std::string w = s_.substr(b, j + 1 - b);
            if (w == "__global__")
                kind = 2;
            else if (w == "__device__" && kind == 0)
                kind = 1;
            else if (w == "template" && kind == 2)
                return 3;
            j = b;
        }
    }
    return kind;
}

/* The name of the function whose body the brace at BRACE opens, when it is a
 * plain identifier before its parameter list; "" otherwise. */
std::string Rewriter::kernel_name(size_t brace) const
{
    size_t end = skip_space_back(brace);
    if (end == 0 || s_[end - 1] != ')')
        return "";
    size_t open = match_backward(end - 1);
    if (open == npos)
        return "";
    size_t name_end = skip_space_back(open);
    size_t name = ident_begin(name_end);
    if (name == name_end || std::isdigit((unsigned char)s_[name]))
        return "";
    size_t before = skip_space_back(name);
    if (before > 0 && (s_[before - 1] == ':' || s_[before - 1] == '~'))
        return ""; /* qualified: not at the namespace it is declared in */
    std::string n = s_.substr(name, name_end - name);
    if (n == "__launch_bounds__" || n == "__global__" || n == "operator")
        return "";
    return n;
}

/* Whether the >> (or >>=) at AT is certainly a shift, not two template
 * argument lists closing: no '<' since the start of its expression. */
bool Rewriter::shift_is_safe(size_t at) const
{
    for (size_t j = at; j-- > 0;) {
        if (directive_[j])
            return false;
        if (!is_code(j))
            continue;
        char c = s_[j];
        if (c == ')' || c == ']') {
            j = match_backward(j);
            if (j == npos)
                return false;
            continue;
        }
        if (c == '<')
            return false;
        if (c == ';' || c == '{' || c == '}' || c == ',' || c == '(' || c == '[' || c == '?' ||
            c == ':' || (c == '=' && j + 1 < s_.size() && s_[j + 1] != '=' && j > 0 &&
                         std::string("=!<>+-*/%&|^").find(s_[j - 1]) == npos))
            return true;
    }
    return true;
}

/* A shift in device code, at AT (<<, <<=, >> or >>=): becomes the same
 * operator around ::cuda_emu::shift_tag, whose overloads give the GPU's
 * result where C++ leaves it undefined (a count of the width or more gives 0,
 * or the sign for a signed >>; see cuda_emu/device.h). Precedence and
 * associativity stay those of the token replaced. */
void Rewriter::handle_shift(size_t at, size_t *next)
{
    bool assign = code_at(at + 2, "=");
    std::string op = s_.substr(at, assign ? 3 : 2);
    *next = at + op.size();
    size_t before = skip_space_back(at);
    size_t word = ident_begin(before);
    if (before > word && s_.compare(word, before - word, "operator") == 0)
        return; /* a declaration of operator<< */
    if (before > 0 && (s_[before - 1] == '<' || s_[before - 1] == '>'))
        return; /* part of <<< or >>> */
    if (code_at(*next, "<") || code_at(*next, ">"))
        return;
    if (op[0] == '>' && !shift_is_safe(at))
        return;
    edits_.push_back(Edit{at, at + op.size(), op + " ::cuda_emu::shift_tag " + op});
}

/* Whether the declaration whose body the brace at BRACE opens says constexpr
 * or consteval (back to the previous ; { } or directive at its level). */
bool Rewriter::declares_constexpr(size_t brace) const
{
    for (size_t j = brace; j-- > 0;) {
        if (directive_[j])
            return false;
        if (!is_code(j))
            continue;
        char c = s_[j];
        if (c == ')' || c == ']') {
            j = match_backward(j);
            if (j == npos)
                return false;
            continue;
        }
        if (c == ';' || c == '{' || c == '}')
            return false;
        if (ident_char(c)) {
            size_t b = ident_begin(j + 1);
            std::string w = s_.substr(b, j + 1 - b);
            if (w == "constexpr" || w == "consteval")
                return true;
            j = b;
        }
    }
    return false;
}

/* Whether the condition [BEGIN, END) declares a variable (`int x = f()`,
 * `auto *p = q`, `T v{..}`), which cannot be wrapped in a call: it starts
 * with a type keyword not followed by '(' (a functional cast is an
 * expression), or two names follow each other before an '=' or '{'. */
bool Rewriter::looks_like_declaration(size_t begin, size_t end) const
{
    static const char *const types[] = {"auto", "const", "volatile", "unsigned", "signed",
                                        "int", "float", "double", "bool", "char", "long",
                                        "short", "struct", "class", "enum", "typename",
                                        "register", "static"};
    size_t i = skip_space(begin);
    if (i >= end || !ident_char(s_[i]) || std::isdigit((unsigned char)s_[i]))
        return false;
    std::string first = s_.substr(i, ident_end(i) - i);
    for (const char *t : types)
        if (first == t)
            return !code_at(skip_space(ident_end(i)), "(");
    unsigned names = 0; /* names in a row, with only :: * & or <...> between them */
    for (; i < end;) {
        i = skip_space(i);
        if (i >= end)
            break;
        char c = s_[i];
        if (ident_char(c) && !std::isdigit((unsigned char)c)) {
            ++names;
            i = ident_end(i);
        } else if (code_at(i, "::")) {
            names -= names > 0; /* a::b is one name */
            i += 2;
        } else if (c == '*' || (c == '&' && !code_at(i, "&&"))) {
            ++i;
        } else if (c == '<') {
            int depth = 0;
            for (; i < end; ++i) {
                if (s_[i] == '<')
                    ++depth;
                else if (s_[i] == '>' && --depth == 0)
                    break;
                else if (s_[i] == ';' || s_[i] == '(' || s_[i] == ')')
                    return false; /* a comparison, not template arguments */
            }
            ++i;
        } else {
            return names >= 2 && ((c == '=' && !code_at(i, "==")) || c == '{');
        }
    }
    return false;
}

/* A branch in device code: the keyword (if, while, for) at AT. Its condition
 * becomes ::cuda_emu::branch(static_cast<bool>(CONDITION), "FILE@OFFSET"), which
 * returns the condition and, while make explain counts (count.cpp), records
 * which lanes of the warp went which way. The string names the branch: g++
 * may split one call into several (a && b that it knows false on one path),
 * and the lanes of one branch must still be counted together. Left alone: if constexpr, range for loops, for
 * loops without a condition, conditions that declare a variable, and loops
 * under #pragma unroll, which nvcc unrolls into code without a branch (and
 * g++ would not unroll: it ignores the pragma when the condition holds a call
 * that branches). */
void Rewriter::handle_branch(size_t at, const std::string &word)
{
    size_t before = skip_space_back(at);
    if (word != "if" && before > 0 && directive_[before - 1]) {
        size_t hash = before - 1;
        while (hash > 0 && !(s_[hash] == '#' && (s_[hash - 1] == '\n' || !directive_[hash - 1])))
            --hash;
        const std::string d = flatten(hash, before);
        if (d.compare(0, 7, "#pragma") == 0 && d.find("unroll") != npos)
            return;
    }
    size_t open = skip_space(ident_end(at));
    if (word == "if" && code_at(open, "constexpr"))
        return;
    if (!code_at(open, "("))
        return;
    size_t close = match_forward(open);
    if (close == npos)
        return;
    std::vector<size_t> semis; /* top-level ';' inside the parentheses */
    for (size_t j = open + 1; j < close; ++j) {
        if (!is_code(j))
            continue;
        if (s_[j] == '(' || s_[j] == '[' || s_[j] == '{') {
            j = match_forward(j);
            if (j == npos || j > close)
                return;
        } else if (s_[j] == ';') {
            semis.push_back(j);
        }
    }
    size_t begin = open + 1, end = close;
    if (word == "for") {
        if (semis.size() != 2)
            return; /* a range for loop */
        begin = semis[0] + 1;
        end = semis[1];
    } else if (!semis.empty()) {
        if (word != "if")
            return;
        begin = semis.back() + 1; /* if (init; condition) */
    }
    begin = skip_space(begin);
    end = skip_space_back(end);
    if (begin >= end || looks_like_declaration(begin, end))
        return;
    edits_.push_back(Edit{begin, begin, "::cuda_emu::branch(static_cast<bool>("});
    edits_.push_back(Edit{end, end, "), " + quoted(path_ + "@" + std::to_string(begin)) + ")"});
}

bool Rewriter::handle_directive(size_t hash, size_t *next)
{
    size_t end = directive_end(hash);
    size_t w = skip_space(hash + 1);
    size_t we = ident_end(w);
    std::string word = s_.substr(w, we - w);
    *next = end;
    if (word == "define") {
        *next = we; /* launches inside a macro are rewritten like any others */
        return true;
    }
    if (word == "pragma") {
        size_t p = skip_space(we);
        std::string what = s_.substr(p, ident_end(p) - p);
        if (what == "unroll" || what.compare(0, 3, "nv_") == 0) {
            /* #pragma unroll [N] becomes GCC's own (a register array indexed in
             * a fully unrolled loop then stays in registers, which the access
             * checks never see); nvcc's other pragmas are blanked. Newlines
             * are kept, so lines still match the .cu file. */
            std::string text;
            if (what == "unroll") {
                size_t n = skip_space(ident_end(p));
                size_t ne = n;
                while (ne < end && isdigit((unsigned char)s_[ne]))
                    ++ne;
                std::string count = ne > n ? s_.substr(n, ne - n) : "8";
                text = "#pragma GCC unroll " + (count.size() > 5 ? std::string("8") : count);
            }
            for (size_t i = hash; i < end; ++i)
                if (s_[i] == '\n')
                    text += '\n';
            edits_.push_back(Edit{hash, end, text});
        }
        return true;
    }
    if (word == "include") {
        size_t q = skip_space(we);
        if (q < end && s_[q] == '"') {
            size_t close = s_.find('"', q + 1);
            if (close != npos && close < end) {
                std::string mapped = includes_(s_.substr(q + 1, close - q - 1));
                if (!mapped.empty())
                    edits_.push_back(Edit{q, close + 1, quoted(mapped)});
            }
        }
    }
    return true;
}

/* The start of the kernel expression that ends at END, just before "<<<":
 * a name, possibly qualified (ns::k, Class::k), with template arguments
 * (k<T, 4>), or an expression like kernels[i] or (ptr). npos if none. */
size_t Rewriter::callee_begin(size_t end) const
{
    size_t pos = end;
    for (;;) {
        if (pos == 0)
            return npos;
        char c = s_[pos - 1];
        if (c == '>') {
            size_t open = match_angle_backward(pos - 1);
            if (open == npos)
                return npos;
            size_t name_end = skip_space_back(open);
            if (name_end == 0 || !ident_char(s_[name_end - 1]))
                return npos;
            pos = ident_begin(name_end);
        } else if (c == ')' || c == ']') {
            size_t open = match_backward(pos - 1);
            if (open == npos)
                return npos;
            size_t name_end = skip_space_back(open);
            if (name_end == 0 || !ident_char(s_[name_end - 1]))
                return open; /* a parenthesised expression */
            pos = ident_begin(name_end);
        } else if (ident_char(c)) {
            pos = ident_begin(pos);
        } else {
            return npos;
        }
        size_t w = skip_space_back(pos);
        if (w >= 2 && s_[w - 1] == ':' && s_[w - 2] == ':') {
            size_t before = skip_space_back(w - 2);
            if (before > 0 && (ident_char(s_[before - 1]) || s_[before - 1] == '>')) {
                pos = before;
                continue;
            }
            return w - 2; /* ::kernel */
        }
        if (w >= 1 && s_[w - 1] == '.' && !(w >= 2 && std::isdigit((unsigned char)s_[w - 2]))) {
            pos = skip_space_back(w - 1);
            continue;
        }
        if (w >= 2 && s_[w - 1] == '>' && s_[w - 2] == '-') {
            pos = skip_space_back(w - 2);
            continue;
        }
        return pos;
    }
}

bool Rewriter::handle_launch(size_t at, size_t *next)
{
    size_t callee_end = skip_space_back(at);
    size_t callee = callee_begin(callee_end);
    if (callee == npos || std::isdigit((unsigned char)s_[callee]))
        return fail(at, "cannot find the kernel before <<<");
    /* The configuration ends at the first >>> outside brackets. */
    size_t cfg = at + 3, cfg_end = npos;
    for (size_t j = cfg; j < s_.size(); ++j) {
        if (!is_code(j))
            continue;
        if (s_[j] == '(' || s_[j] == '[' || s_[j] == '{') {
            j = match_forward(j);
            if (j == npos)
                break;
        } else if (s_[j] == ';' || s_[j] == ')' || s_[j] == ']' || s_[j] == '}') {
            break;
        } else if (code_at(j, ">>>")) {
            cfg_end = j;
            break;
        }
    }
    if (cfg_end == npos)
        return fail(at, "cannot find the >>> that ends this launch configuration");
    size_t open = skip_space(cfg_end + 3);
    if (open >= s_.size() || s_[open] != '(' || !is_code(open))
        return fail(at, "expected the kernel's argument list after >>>");
    size_t close = match_forward(open);
    if (close == npos)
        return fail(open, "unbalanced parentheses in the kernel's argument list");
    std::string kernel = flatten(callee, callee_end);
    if (!device_.empty() && device_.back()) {
        /* A launch from device code (dynamic parallelism): a build error
         * where it is compiled, see prelude.h. */
        edits_.push_back(Edit{callee, close + 1,
                              "CUDA_EMU_DEVICE_LAUNCH" +
                                  std::string(newlines(callee, close + 1), '\n')});
        *next = close + 1;
        return true;
    }
    bool has_args = skip_space(open + 1) < close;
    std::string out = "::cuda_emu::launch(CUDA_EMU_KERNEL_PTR(" + kernel + "), " + quoted(kernel) +
                      ", ::cuda_emu::config(" + s_.substr(cfg, cfg_end - cfg) +
                      "), [&](auto... cuda_emu_a) { " + kernel + "(cuda_emu_a...); }" +
                      (has_args ? ", " + s_.substr(open + 1, close - open - 1) : std::string()) + ")";
    out += std::string(newlines(callee, at) + newlines(cfg_end, open), '\n');
    edits_.push_back(Edit{callee, close + 1, out});
    *next = close + 1;
    return true;
}

/* The names of the declarators in MEMBER ("float a[4], *b" gives a, b):
 * for each comma-separated part, the last identifier before its first '['
 * or '=' that is not an attribute-like word followed by '('. */
std::vector<std::string> declarator_names(const std::string &member)
{
    std::vector<std::string> names;
    std::string last;
    int depth = 0;
    bool done = false; /* past this declarator's name */
    for (size_t i = 0; i <= member.size(); ++i) {
        char c = i < member.size() ? member[i] : ',';
        if (depth == 0 && c == ',') {
            names.push_back(last);
            last.clear();
            done = false;
            continue;
        }
        if (c == '(' || c == '[' || c == '{' || c == '<') {
            if (depth == 0 && (c == '[' || c == '('))
                done = done || c == '[';
            ++depth;
            continue;
        }
        if (c == ')' || c == ']' || c == '}' || c == '>') {
            --depth;
            continue;
        }
        if (depth == 0 && c == '=')
            done = true;
        if (depth != 0 || done || !ident_char(c) || (i > 0 && ident_char(member[i - 1])))
            continue;
        size_t e = i;
        while (e < member.size() && ident_char(member[e]))
            ++e;
        size_t after = e;
        while (after < member.size() && member[after] == ' ')
            ++after;
        std::string word = member.substr(i, e - i);
        bool qualifier = word == "const" || word == "volatile" || word == "__restrict__" ||
                         word == "__restrict" || word == "restrict";
        if (!std::isdigit((unsigned char)word[0]) && !qualifier &&
            !(after < member.size() && member[after] == '('))
            last = word;
        i = e - 1;
    }
    return names;
}

bool Rewriter::handle_shared(size_t at, size_t *next)
{
    /* The declaration runs from after the previous ; { } or directive line
     * to the next ; outside brackets. */
    size_t begin = at;
    for (size_t j = at; j-- > 0;) {
        if (directive_[j]) {
            begin = j + 1;
            break;
        }
        if (!is_code(j))
            continue;
        char c = s_[j];
        if (c == ')' || c == ']') {
            j = match_backward(j);
            if (j == npos)
                return fail(at, "unbalanced brackets before __shared__");
            continue;
        }
        if (c == ';' || c == '{' || c == '}') {
            begin = j + 1;
            break;
        }
        begin = j;
    }
    begin = skip_space(begin);
    size_t semi = npos;
    for (size_t j = at; j < s_.size(); ++j) {
        if (!is_code(j))
            continue;
        if (s_[j] == '(' || s_[j] == '[') {
            j = match_forward(j);
            if (j == npos)
                break;
        } else if (s_[j] == ';') {
            semi = j;
            break;
        } else if (s_[j] == '{' || s_[j] == '}') {
            break;
        }
    }
    if (semi == npos)
        return fail(at, "cannot find the end of this __shared__ declaration");

    /* The declaration without __shared__, extern and static: a struct member. */
    std::string member;
    bool is_extern = false;
    for (size_t i = begin; i < semi;) {
        if (is_code(i) && ident_char(s_[i]) && (i == begin || !ident_char(s_[i - 1]))) {
            size_t e = ident_end(i);
            std::string word = s_.substr(i, e - i);
            if (word == "__shared__" || word == "extern" || word == "static") {
                is_extern |= word == "extern";
                member += ' ';
                i = e;
                continue;
            }
            member += word;
            i = e;
            continue;
        }
        member += kind_[i] == comment || s_[i] == '\n' || (s_[i] == '\\' && i + 1 < semi && s_[i + 1] == '\n') ? ' ' : s_[i];
        ++i;
    }
    std::vector<std::string> names = declarator_names(member);
    for (const std::string &name : names)
        if (name.empty())
            return fail(at, "cannot find the name declared by this __shared__ declaration");

    const unsigned id = counter_++;
    const std::string tag = "cuda_emu_shared_" + std::to_string(line_of(at)) + "_" + std::to_string(id);
    const bool file_scope = at_file_scope();
    std::string out;
    if (is_extern) {
        if (names.size() != 1)
            return fail(at, "declare one extern __shared__ array per declaration");
        size_t open = member.find('[');
        size_t close = open == npos ? npos : member.find(']', open);
        if (close == npos || member.find_first_not_of(' ', open + 1) != close)
            return fail(at, "an extern __shared__ declaration must be an array of unknown size, "
                            "like extern __shared__ float smem[]");
        member.replace(open, close - open + 1, "[1]");
        const std::string &name = names[0];
        std::string elem = "std::remove_extent_t<decltype(" + tag + "::" + name + ")>";
        out = "struct " + tag + " { " + member + "; }; ";
        if (file_scope)
            out += "static thread_local " + elem + " *" + name + "; [[maybe_unused]] static const bool " + tag +
                   "_registered = ::cuda_emu::register_dynamic_shared_alias([](void *cuda_emu_p) { " +
                   name + " = static_cast<" + elem + " *>(cuda_emu_p); });";
        else
            out += "auto *" + name + " = ::cuda_emu::dynamic_shared<" + elem + ">();";
    } else {
        out = "struct " + tag + " { " + member + "; };";
        if (file_scope) {
            /* One copy per host thread, which the runtime fills with the
             * running block's contents whenever it switches blocks. */
            for (size_t k = 0; k < names.size(); ++k) {
                const std::string &n = names[k];
                out += " static thread_local decltype(" + tag + "::" + n + ") " + n +
                       "; [[maybe_unused]] static const bool " + tag + "_registered_" +
                       std::to_string(k) + " = ::cuda_emu::register_file_shared([]() -> void * { "
                       "return &" + n + "; }, sizeof(" + n + "), " + quoted(n) +
                       ", sizeof(std::remove_all_extents_t<decltype(" + tag + "::" + n + ")>));";
            }
            out += std::string(newlines(begin, semi + 1), '\n');
            edits_.push_back(Edit{begin, semi + 1, out});
            *next = semi + 1;
            return true;
        }
        for (size_t k = 0; k < names.size(); ++k)
            out += " auto &" + names[k] + " = ::cuda_emu::shared_var<decltype(" + tag + "::" +
                   names[k] + ")>(&::cuda_emu::shared_key<" + tag + ">, " + std::to_string(k) +
                   ", " + quoted(names[k]) + ");";
    }
    out += std::string(newlines(begin, semi + 1), '\n');
    edits_.push_back(Edit{begin, semi + 1, out});
    *next = semi + 1;
    return true;
}

bool Rewriter::handle_launch_bounds(size_t at, size_t *next)
{
    size_t open = skip_space(ident_end(at));
    if (open >= s_.size() || s_[open] != '(')
        return fail(at, "expected ( after __launch_bounds__");
    size_t close = match_forward(open);
    if (close == npos)
        return fail(at, "unbalanced parentheses in __launch_bounds__");
    *next = close + 1;
    for (size_t j = close + 1; j < s_.size(); ++j) {
        if (!is_code(j))
            continue;
        if (s_[j] == '(' || s_[j] == '[') {
            j = match_forward(j);
            if (j == npos)
                return true;
        } else if (s_[j] == ';' || s_[j] == '}') {
            return true; /* a declaration: the definition carries the check */
        } else if (s_[j] == '{') {
            edits_.push_back(Edit{j + 1, j + 1,
                                  " ::cuda_emu::kernel_launch_bounds(" + flatten(open + 1, close) +
                                      ");"});
            /* Told to the runtime before the kernel first runs: the most threads a block may
             * have (cudaFuncGetAttributes' maxThreadsPerBlock, the occupancy API's cap) and,
             * with a minimum of blocks per SM, the registers the occupancy API counts. */
            pending_bounds_ = flatten(open + 1, close);
            return true;
        }
    }
    return true;
}

/* The contents of the string literal [BEGIN, END) (a plain "..." literal;
 * escapes kept as written). */
static std::string literal_text(const std::string &s, size_t begin, size_t end)
{
    if (end - begin < 2 || s[begin] != '"' || s[end - 1] != '"')
        return std::string(1, '\0'); /* not a plain literal: matches nothing */
    return s.substr(begin + 1, end - begin - 2);
}

/* ---- Inline PTX -------------------------------------------------------------
 * The subset of PTX that performance code writes by hand is translated into C++ where the
 * asm stands (README.md, Inline PTX): loads and stores of global or generic memory with
 * their cache and vector qualifiers, mov (special registers, packing and unpacking),
 * shfl.sync, fma.rn, prmt, lop3, and cvt between float and integer types. The operands become
 * variables cuda_emu_p0, cuda_emu_p1 ... (outputs bound by reference, inputs by value), and
 * the instructions statements that read and write them through cuda_emu/ptx.h, so every
 * load and store is checked as the rest of the kernel's. Any other instruction is refused
 * where it is compiled, naming it. */

namespace {

/* The C++ type of a PTX type suffix, or "" for one outside the subset. */
std::string ptx_type(const std::string &t)
{
    static const char *const map[][2] = {
        {"f32", "float"},          {"f64", "double"},         {"b32", "unsigned"},
        {"u32", "unsigned"},       {"s32", "int"},            {"b64", "unsigned long long"},
        {"u64", "unsigned long long"}, {"s64", "long long"},  {"b16", "unsigned short"},
        {"u16", "unsigned short"}, {"s16", "short"},          {"b8", "unsigned char"},
        {"u8", "unsigned char"},   {"s8", "signed char"}};
    for (const auto &m : map)
        if (t == m[0])
            return m[1];
    return "";
}

std::string trim(const std::string &s)
{
    size_t b = 0, e = s.size();
    while (b < e && std::isspace((unsigned char)s[b]))
        ++b;
    while (e > b && std::isspace((unsigned char)s[e - 1]))
        --e;
    return s.substr(b, e - b);
}

/* S split at the commas outside {} and []. */
std::vector<std::string> split_operands(const std::string &s)
{
    std::vector<std::string> out;
    int depth = 0;
    std::string cur;
    for (char c : s) {
        if (c == '{' || c == '[')
            ++depth;
        if (c == '}' || c == ']')
            --depth;
        if (c == ',' && depth == 0) {
            out.push_back(trim(cur));
            cur.clear();
        } else
            cur += c;
    }
    if (!trim(cur).empty())
        out.push_back(trim(cur));
    return out;
}

std::vector<std::string> split_dots(const std::string &s)
{
    std::vector<std::string> out;
    size_t b = 0;
    for (size_t i = 0; i <= s.size(); ++i)
        if (i == s.size() || s[i] == '.') {
            out.push_back(s.substr(b, i - b));
            b = i + 1;
        }
    return out;
}

struct Ptx {
    size_t nops;      /* operands of the asm */
    std::string code; /* the statements so far */
    std::string refused; /* the first instruction outside the subset */

    /* %N as the operand's variable, or "" */
    std::string operand(const std::string &x) const
    {
        if (x.size() < 2 || x[0] != '%' || !std::isdigit((unsigned char)x[1]))
            return "";
        for (size_t i = 1; i < x.size(); ++i)
            if (!std::isdigit((unsigned char)x[i]))
                return "";
        size_t n = std::stoul(x.substr(1));
        return n < nops ? "cuda_emu_p" + std::to_string(n) : "";
    }
    /* X read as type T (C++ spelling), or "" if X is not an operand, a special register or a
     * literal. */
    std::string value(const std::string &x, const std::string &t) const
    {
        std::string v = operand(x);
        if (!v.empty())
            return "::cuda_emu::ptx::in<" + t + ">(" + v + ")";
        static const char *const regs[] = {"laneid", "warpid", "nwarpid", "smid", "nsmid",
                                           "lanemask_eq", "lanemask_lt", "lanemask_le",
                                           "lanemask_gt", "lanemask_ge", "clock", "clock64",
                                           "globaltimer"};
        for (const char *r : regs)
            if (x == std::string("%") + r)
                return "((" + t + ")::cuda_emu::ptx_" + r + "())";
        if ((x.size() == 10 && (x.compare(0, 2, "0f") == 0 || x.compare(0, 2, "0F") == 0)) ||
            (x.size() == 18 && (x.compare(0, 2, "0d") == 0 || x.compare(0, 2, "0D") == 0))) {
            for (size_t i = 2; i < x.size(); ++i)
                if (!std::isxdigit((unsigned char)x[i]))
                    return "";
            return "::cuda_emu::ptx::in<" + t + ">(::cuda_emu::ptx::in<" +
                   (x.size() == 10 ? "float" : "double") + ">(0x" + x.substr(2) + "ull" +
                   (x.size() == 10 ? " & 0xffffffffu" : "") + "))";
        }
        size_t i = x[0] == '-' ? 1 : 0;
        if (i >= x.size() || !std::isdigit((unsigned char)x[i]))
            return "";
        for (size_t k = i; k < x.size(); ++k)
            if (!std::isalnum((unsigned char)x[k]))
                return "";
        return "((" + t + ")(" + x + "))";
    }
    /* [%N] or [%N+imm] as a char pointer, or "" */
    std::string address(const std::string &x) const
    {
        if (x.size() < 3 || x.front() != '[' || x.back() != ']')
            return "";
        std::string in = trim(x.substr(1, x.size() - 2)), off = "0";
        size_t plus = in.find_first_of("+-", 1);
        if (plus != std::string::npos) {
            off = trim(in.substr(plus + (in[plus] == '+' ? 1 : 0)));
            in = trim(in.substr(0, plus));
            if (value(off, "long long").empty())
                return "";
        }
        std::string v = operand(in);
        return v.empty() ? "" : "(::cuda_emu::ptx::addr(" + v + ") + (" + off + "))";
    }
    /* [%N] or [%N+imm] where %N holds a shared-window address (__cvta_generic_to_shared),
     * as a char pointer to the BYTES there, or "" */
    std::string shared_address(const std::string &x, const std::string &bytes,
                               const std::string &what) const
    {
        std::string a = address(x);
        if (a.empty())
            return "";
        /* address() gave (::cuda_emu::ptx::addr(V) + (OFF)): the same sum, as a window */
        return "((char *)::cuda_emu::shared_at((unsigned long long)(uintptr_t)" + a + ", " +
               bytes + ", \"" + what + "\"))";
    }
    /* {a, b, ...} as its elements, or X alone */
    static std::vector<std::string> elements(const std::string &x)
    {
        if (x.size() >= 2 && x.front() == '{' && x.back() == '}')
            return split_operands(x.substr(1, x.size() - 2));
        return {x};
    }
    std::string store(const std::string &dst, const std::string &t, const std::string &v) const
    {
        std::string d = operand(dst);
        return d.empty() ? "" : "::cuda_emu::ptx::out<" + t + ">(" + d + ", " + v + "); ";
    }

    bool instruction(const std::string &ins);
};

bool Ptx::instruction(const std::string &ins)
{
    size_t sp = 0;
    while (sp < ins.size() && !std::isspace((unsigned char)ins[sp]))
        ++sp;
    const std::string opcode = ins.substr(0, sp);
    std::vector<std::string> ops = split_operands(ins.substr(sp));
    std::vector<std::string> q = split_dots(opcode);
    const std::string &op = q[0];
    auto refuse = [&]() {
        refused = opcode;
        return false;
    };
    if (op.empty() || op[0] == '@' || op[0] == '.')
        return refuse();
    const std::string t = ptx_type(q.back());
    if (op == "trap" && q.size() == 1 && ops.empty()) { /* the kernel ends: __trap() */
        code += "__trap(); ";
        return true;
    }
    if (op == "cp" && q.size() >= 3 && q[1] == "async") {
        /* cp.async.commit_group, .wait_group N, .wait_all, and
         * cp.async.{ca,cg}.shared[::cta].global[.L2::hints] [dst], [src], size[, src-size]
         * [, cache-policy] (cuda_emu/ptx.h, CUDA_EMU_CP_ASYNC) */
        if (q.size() == 3 && q[2] == "commit_group" && ops.empty()) {
            code += "::cuda_emu::async_copy_commit(); ";
            return true;
        }
        if (q.size() == 3 && q[2] == "wait_all" && ops.empty()) {
            code += "::cuda_emu::async_copy_wait(-1); ";
            return true;
        }
        if (q.size() == 3 && q[2] == "wait_group" && ops.size() == 1) {
            std::string n = value(ops[0], "int");
            if (n.empty())
                return refuse();
            code += "::cuda_emu::async_copy_wait(" + n + "); ";
            return true;
        }
        if (q[2] != "ca" && q[2] != "cg")
            return refuse();
        bool shared = false, global = false, policy = false;
        for (size_t i = 3; i < q.size(); ++i) {
            if (q[i] == "shared" || q[i] == "shared::cta")
                shared = true;
            else if (q[i] == "global")
                global = true;
            else if (q[i] == "L2::cache_hint")
                policy = true;
            else if (q[i] != "L2::64B" && q[i] != "L2::128B" && q[i] != "L2::256B")
                return refuse();
        }
        const size_t n = ops.size() - (policy ? 1 : 0);
        if (!shared || !global || (n != 3 && n != 4))
            return refuse();
        std::string size = value(ops[2], "unsigned");
        std::string src_size = n == 4 ? value(ops[3], "unsigned") : size;
        std::string src = address(ops[1]);
        std::string dst = size.empty() ? "" : shared_address(ops[0], size, "cp.async");
        if (size.empty() || src_size.empty() || src.empty() || dst.empty())
            return refuse();
        code += "CUDA_EMU_CP_ASYNC(" + dst + ", " + src + ", " + size + ", " + src_size + "); ";
        return true;
    }
    if (op == "ld" || op == "st") {
        /* Global, generic or (through the shared window) shared memory; the cache and
         * eviction hints change no value. */
        static const char *const hints[] = {
            "global", "nc", "ca", "cg", "cs", "lu", "cv", "wb", "wt", "volatile",
            "L1::no_allocate", "L1::evict_normal", "L1::evict_unchanged", "L1::evict_first",
            "L1::evict_last", "L2::64B", "L2::128B", "L2::256B", "L2::evict_normal",
            "L2::evict_first", "L2::evict_last"};
        int vec = 1;
        bool shared = false;
        for (size_t i = 1; i + 1 < q.size(); ++i) {
            bool known = false;
            for (const char *h : hints)
                known = known || q[i] == h;
            if (q[i] == "shared" || q[i] == "shared::cta")
                shared = known = true;
            if (q[i] == "v2" || q[i] == "v4" || q[i] == "v8")
                vec = q[i][1] - '0', known = true;
            if (!known)
                return refuse();
        }
        if (t.empty() || ops.size() != 2)
            return refuse();
        const std::string &mem = op == "ld" ? ops[1] : ops[0], &reg = op == "ld" ? ops[0] : ops[1];
        std::string a = shared ? shared_address(mem, std::to_string(vec) + " * sizeof(" + t + ")",
                                                op == "ld" ? "ld.shared" : "st.shared")
                               : address(mem);
        std::vector<std::string> el = elements(reg);
        if (a.empty() || (int)el.size() != vec)
            return refuse();
        std::string body = "{ " + std::string(op == "ld" ? "const " : "") + t +
                           " *cuda_emu_a = reinterpret_cast<" + (op == "ld" ? "const " : "") + t +
                           " *>" + a + "; ";
        for (int i = 0; i < vec; ++i) {
            std::string at = "cuda_emu_a[" + std::to_string(i) + "]";
            std::string s = op == "ld" ? store(el[i], t, at) : value(el[i], t);
            if (s.empty())
                return refuse();
            body += op == "ld" ? s : at + " = " + s + "; ";
        }
        code += body + "} ";
        return true;
    }
    if (op == "mov" && q.size() == 2 && !t.empty() && ops.size() == 2) {
        std::vector<std::string> d = elements(ops[0]), a = elements(ops[1]);
        const bool wide = q[1] == "b64";
        const std::string half = wide ? "unsigned" : "unsigned short", bits = wide ? "32" : "16";
        if (d.size() == 1 && a.size() == 2) { /* pack: the first element is the low half */
            std::string lo = value(a[0], half), hi = value(a[1], half), s;
            if (!lo.empty() && !hi.empty())
                s = store(d[0], t, "(" + t + ")((" + t + ")" + lo + " | ((" + t + ")" + hi +
                                       " << " + bits + "))");
            if (s.empty() || q[1][0] != 'b')
                return refuse();
            code += s;
            return true;
        }
        if (d.size() == 2 && a.size() == 1) { /* unpack */
            std::string v = value(a[0], t);
            if (v.empty() || q[1][0] != 'b')
                return refuse();
            std::string s0 = store(d[0], half, "(" + half + ")(" + v + ")"),
                        s1 = store(d[1], half, "(" + half + ")(" + v + " >> " + bits + ")");
            if (s0.empty() || s1.empty())
                return refuse();
            code += s0 + s1;
            return true;
        }
        std::string v = d.size() == 1 && a.size() == 1 ? value(a[0], t) : "";
        std::string s = v.empty() ? "" : store(d[0], t, v);
        if (s.empty())
            return refuse();
        code += s;
        return true;
    }
    if (op == "shfl" && q.size() == 4 && q[1] == "sync" && q[3] == "b32" && ops.size() == 5) {
        static const char *const modes[][2] = {{"idx", "__shfl_sync"}, {"up", "__shfl_up_sync"},
                                               {"down", "__shfl_down_sync"},
                                               {"bfly", "__shfl_xor_sync"}};
        std::string fn;
        for (const auto &m : modes)
            if (q[2] == m[0])
                fn = m[1];
        std::string a = value(ops[1], "unsigned"), b = value(ops[2], "unsigned"),
                    c = value(ops[3], "unsigned"), mask = value(ops[4], "unsigned");
        if (fn.empty() || a.empty() || b.empty() || c.empty() || mask.empty())
            return refuse();
        /* c packs the segment mask (32 - width) << 8 with the clamp: the width comes back */
        std::string s = store(ops[0], "unsigned",
                              fn + "(" + mask + ", " + a + ", " + b + ", 32 - (int)((" + c +
                                  " >> 8) & 31))");
        if (s.empty())
            return refuse();
        code += s;
        return true;
    }
    if (op == "fma" && q.size() >= 3 && q[1] == "rn" && (q.back() == "f32" || q.back() == "f64") &&
        ops.size() == 4 && (q.size() == 3 || (q.size() == 4 && q[2] == "ftz"))) {
        std::string a = value(ops[1], t), b = value(ops[2], t), c = value(ops[3], t);
        std::string s = a.empty() || b.empty() || c.empty()
                            ? ""
                            : store(ops[0], t, std::string(t == "float" ? "::fmaf(" : "::fma(") +
                                                   a + ", " + b + ", " + c + ")");
        if (s.empty())
            return refuse();
        code += s;
        return true;
    }
    if ((op == "prmt" || op == "lop3") && q.size() == 2 && q[1] == "b32" &&
        ops.size() == (op == "prmt" ? 4u : 5u)) {
        std::vector<std::string> v;
        for (size_t i = 1; i < ops.size(); ++i)
            v.push_back(value(ops[i], "unsigned"));
        for (const std::string &x : v)
            if (x.empty())
                return refuse();
        std::string s = store(ops[0], "unsigned",
                              op == "prmt" ? "__byte_perm(" + v[0] + ", " + v[1] + ", " + v[2] + ")"
                                           : "::cuda_emu::ptx::lop3(" + v[0] + ", " + v[1] + ", " +
                                                 v[2] + ", " + v[3] + ")");
        if (s.empty())
            return refuse();
        code += s;
        return true;
    }
    if (op == "cvt" && q.size() >= 3 && ops.size() == 2) {
        /* cvt[.rnd][.ftz].dtype.stype between float and integer types */
        const std::string dt = q[q.size() - 2], st = q.back();
        std::string rnd;
        for (size_t i = 1; i + 2 < q.size(); ++i)
            if (q[i] != "ftz")
                rnd += (rnd.empty() ? "" : ".") + q[i];
        const std::string dtc = ptx_type(dt), stc = ptx_type(st);
        const bool dfloat = dt[0] == 'f', sfloat = st[0] == 'f';
        std::string a = stc.empty() ? "" : value(ops[1], stc), expr;
        if (dtc.empty() || a.empty() || dt == "f16" || st == "f16")
            return refuse();
        if (dfloat && sfloat) {
            if (dt == st || (dt == "f64" && rnd.empty()))
                expr = "(" + dtc + ")" + a;
            else if (dt == "f32" && rnd == "rn")
                expr = "__double2float_rn(" + a + ")";
        } else if (!dfloat && sfloat) {
            static const char *const modes[][2] = {{"rni", "rn"}, {"rzi", "rz"}, {"rmi", "rd"},
                                                   {"rpi", "ru"}};
            std::string m;
            for (const auto &x : modes)
                if (rnd == x[0])
                    m = x[1];
            std::string to = dt == "s32" ? "int" : dt == "u32" ? "uint" : dt == "s64" ? "ll"
                           : dt == "u64" ? "ull" : "";
            if (!m.empty() && !to.empty())
                expr = std::string(st == "f32" ? "__float2" : "__double2") + to + "_" + m + "(" + a + ")";
        } else if (dfloat && !sfloat && rnd == "rn") {
            expr = "(" + dtc + ")" + a; /* the CPU's conversion rounds to nearest */
        }
        std::string s = expr.empty() ? "" : store(ops[0], dtc, expr);
        if (s.empty())
            return refuse();
        code += s;
        return true;
    }
    return refuse();
}

/* The PTX template TEXT (string literals' contents, escapes as written) with NOPS operands, as
 * C++ statements in *CODE; false with *REFUSED naming the first instruction outside the
 * subset. */
bool translate_ptx(std::string text, size_t nops, bool has_operands, std::string *code,
                   std::string *refused)
{
    std::string t;
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\\' && i + 1 < text.size()) { /* \n, \t ... */
            t += ' ';
            ++i;
        } else if (has_operands && text[i] == '%' && i + 1 < text.size() && text[i + 1] == '%') {
            t += '%';
            ++i;
        } else if (text[i] == '{' || text[i] == '}') {
            t += text[i]; /* kept: vector operands; a scope of its own is taken apart below */
        } else
            t += text[i];
    }
    Ptx p{nops, "", ""};
    size_t b = 0;
    for (size_t i = 0; i <= t.size(); ++i) {
        if (i < t.size() && t[i] != ';')
            continue;
        std::string ins = trim(t.substr(b, i - b));
        b = i + 1;
        /* a brace that opens or closes a scope of its own, not a vector operand */
        while (!ins.empty() && ins[0] == '{' && ins.find('}') == std::string::npos)
            ins = trim(ins.substr(1));
        while (!ins.empty() && ins[0] == '}')
            ins = trim(ins.substr(1));
        if (ins.empty())
            continue;
        if (!p.instruction(ins)) {
            *refused = p.refused;
            return false;
        }
    }
    *code = p.code;
    return true;
}

} // namespace

/* asm [volatile] ("TEMPLATE" [: outputs [: inputs [: clobbers]]]) in device code becomes a
 * do-while block of the translated instructions (see above); an instruction outside the subset
 * becomes a build error where it is compiled, naming it (code under #ifndef CUDA_EMU is never
 * compiled, so it is fine). Returns false for an asm it cannot take apart, which stays a build
 * error of its own (CUDA_EMU_INLINE_ASM). */
bool Rewriter::handle_asm(size_t at, size_t *next)
{
    size_t p = skip_space(ident_end(at));
    for (;;) { /* qualifiers */
        size_t e = ident_end(p);
        std::string q = s_.substr(p, e - p);
        if (q != "volatile" && q != "__volatile__" && q != "__volatile" && q != "inline" &&
            q != "__inline")
            break;
        p = skip_space(e);
    }
    if (!code_at(p, "("))
        return false;
    size_t close = match_forward(p);
    if (close == npos)
        return false;
    /* The template: string literals up to the first ':' */
    std::string text;
    size_t i = skip_space(p + 1);
    while (i < close && kind_[i] == literal) {
        size_t e = i;
        while (e < close && kind_[e] == literal)
            ++e;
        text += literal_text(s_, i, e);
        i = skip_space(e);
    }
    if (text.find('\0') != std::string::npos)
        return false;
    /* Operands: "constraint"(expression), comma-separated, outputs then inputs. */
    std::vector<std::string> decls;
    bool has_operands = false;
    for (int section = 0; section < 3 && i < close; ++section) {
        if (!code_at(i, ":"))
            return false;
        has_operands = true;
        i = skip_space(i + 1);
        if (section == 2) /* clobbers: "memory", registers: nothing to do here */
            break;
        while (i < close && !code_at(i, ":")) {
            size_t c0 = i;
            while (i < close && kind_[i] == literal)
                ++i;
            std::string constraint = literal_text(s_, c0, i);
            i = skip_space(i);
            if (constraint.empty() || constraint[0] == '\0' || !code_at(i, "("))
                return false;
            size_t e = match_forward(i);
            if (e == npos || e > close)
                return false;
            std::string expr = s_.substr(i + 1, e - i - 1);
            const bool by_ref = section == 0 || constraint.find('+') != std::string::npos;
            decls.push_back(std::string(by_ref ? "auto &&" : "auto ") + "cuda_emu_p" +
                            std::to_string(decls.size()) + " = (" + expr + "); ");
            i = skip_space(e + 1);
            if (code_at(i, ","))
                i = skip_space(i + 1);
        }
    }
    std::string code, refused;
    if (!translate_ptx(text, decls.size(), has_operands, &code, &refused)) {
        std::string name;
        for (char c : refused)
            if ((std::isalnum((unsigned char)c) || c == '.' || c == '_' || c == ':' || c == '@') &&
                name.size() < 48)
                name += c;
        edits_.push_back(Edit{at, ident_end(at),
                              "_Pragma(\"GCC error \\\"cuda-emu: cannot be checked on the CPU "
                              "emulator: inline PTX instruction '" + name + "'\\\"\") __asm__"});
        *next = ident_end(at);
        return true;
    }
    std::string out = "do { ";
    for (const std::string &d : decls)
        out += d;
    out += code + "} while (0)";
    out += std::string(newlines(at, close + 1), '\n');
    edits_.push_back(Edit{at, close + 1, out});
    *next = close + 1;
    return true;
}

/* ---- Kernels by address ---------------------------------------------------
 * cudaLaunchKernel((const void *)kernel<8>, ...) names a kernel by address: to
 * unpack its argument array the runtime must have seen the kernel's type. The
 * operand of a cast to void * that names a kernel of this file is wrapped in
 * ::cuda_emu::kernel_ptr(OPERAND, "OPERAND"), which registers it. */

/* Every name that follows __global__ (before its parameter list), declarations
 * and templates included, whatever the order in the file. */
void Rewriter::collect_kernel_names()
{
    for (size_t i = 0; i < s_.size(); ++i) {
        if (!is_code(i) || directive_[i] || !ident_char(s_[i]) || (i > 0 && ident_char(s_[i - 1])))
            continue;
        size_t e = ident_end(i);
        if (s_.compare(i, e - i, "__global__") != 0) {
            i = e - 1;
            continue;
        }
        for (size_t j = e; j < s_.size(); ++j) {
            if (!is_code(j))
                continue;
            if (s_[j] == ';' || s_[j] == '{' || s_[j] == '}')
                break;
            if (s_[j] != '(')
                continue;
            size_t name_end = skip_space_back(j);
            size_t name = ident_begin(name_end);
            std::string n = s_.substr(name, name_end - name);
            if (n == "__launch_bounds__") { /* __launch_bounds__(...) comes before the name */
                j = match_forward(j);
                if (j == npos)
                    break;
                continue;
            }
            if (name < name_end && !std::isdigit((unsigned char)s_[name]))
                kernel_names_.push_back(n);
            break;
        }
        i = e - 1;
    }
}

/* After the opener at I of a cast's type: the position of CLOSE ending
 * `void *`, `const void *` or `void const *`; npos otherwise. */
size_t Rewriter::void_ptr_type_end(size_t i, char close) const
{
    std::vector<std::string> words;
    size_t j = skip_space(i + 1);
    while (j < s_.size() && is_code(j) && s_[j] != close) {
        if (s_[j] == '*') {
            words.push_back("*");
            ++j;
        } else if (ident_char(s_[j])) {
            size_t e = ident_end(j);
            words.push_back(s_.substr(j, e - j));
            j = e;
        } else {
            return npos;
        }
        j = skip_space(j);
        if (words.size() > 3)
            return npos;
    }
    if (!is_code(j) || s_[j] != close)
        return npos;
    static const std::vector<std::vector<std::string>> forms = {
        {"void", "*"}, {"const", "void", "*"}, {"void", "const", "*"}};
    return std::find(forms.begin(), forms.end(), words) != forms.end() ? j : npos;
}

/* The operand at I, when it names a kernel of this file: [&] [::] a::b::name
 * [<template arguments>], followed by , ) or ; . Its end, or npos. */
size_t Rewriter::kernel_operand_end(size_t i) const
{
    size_t j = skip_space(i);
    if (code_at(j, "&"))
        j = skip_space(j + 1);
    if (code_at(j, "::"))
        j = skip_space(j + 2);
    std::string last;
    size_t end = npos;
    for (;;) {
        if (!is_code(j) || !ident_char(s_[j]) || std::isdigit((unsigned char)s_[j]))
            return npos;
        size_t e = ident_end(j);
        last = s_.substr(j, e - j);
        end = e;
        j = skip_space(e);
        if (code_at(j, "<")) { /* template arguments: to the matching '>' */
            int depth = 0;
            size_t k = j;
            for (; k < s_.size(); ++k) {
                if (!is_code(k))
                    continue;
                char c = s_[k];
                if (c == '<') {
                    ++depth;
                } else if (c == '>') {
                    if (--depth == 0)
                        break;
                } else if (c == '(' || c == '[') {
                    k = match_forward(k);
                    if (k == npos)
                        return npos;
                } else if (c == ';' || c == '{' || c == '}' || c == ')') {
                    return npos;
                }
            }
            if (k >= s_.size())
                return npos;
            end = k + 1;
            j = skip_space(end);
        }
        if (code_at(j, "::")) {
            j = skip_space(j + 2);
            continue;
        }
        break;
    }
    if (!is_code(j) || (s_[j] != ',' && s_[j] != ')' && s_[j] != ';'))
        return npos;
    if (std::find(kernel_names_.begin(), kernel_names_.end(), last) == kernel_names_.end())
        return npos;
    return end;
}

/* (void *)kernel, (const void *)kernel<...>: the '(' at AT. */
void Rewriter::handle_void_cast(size_t at)
{
    size_t close = void_ptr_type_end(at, ')');
    if (close == npos)
        return;
    size_t begin = skip_space(close + 1);
    size_t end = kernel_operand_end(begin);
    if (end == npos)
        return;
    std::string name = flatten(begin, end);
    edits_.push_back(Edit{begin, begin, "::cuda_emu::kernel_ptr("});
    edits_.push_back(Edit{end, end, ", " + quoted(name) + ")"});
}

/* reinterpret_cast<const void *>(kernel): the keyword at AT. */
void Rewriter::handle_reinterpret_cast(size_t at)
{
    size_t open = skip_space(ident_end(at));
    if (!code_at(open, "<"))
        return;
    size_t close = void_ptr_type_end(open, '>');
    if (close == npos)
        return;
    size_t paren = skip_space(close + 1);
    if (!code_at(paren, "("))
        return;
    size_t begin = skip_space(paren + 1);
    size_t end = kernel_operand_end(begin);
    if (end == npos || !code_at(skip_space(end), ")"))
        return;
    std::string name = flatten(begin, end);
    edits_.push_back(Edit{begin, begin, "::cuda_emu::kernel_ptr("});
    edits_.push_back(Edit{end, end, ", " + quoted(name) + ")"});
}

bool Rewriter::run(std::string *error)
{
    const size_t n = s_.size();
    collect_kernel_names();
    for (size_t i = 0; i < n;) {
        if (!is_code(i)) {
            ++i;
            continue;
        }
        size_t next = i + 1;
        bool ok = true;
        char c = s_[i];
        if (c == '#' && directive_[i] && (i == 0 || !directive_[i - 1] || s_[i - 1] == '\n')) {
            ok = handle_directive(i, &next);
        } else if (c == '{') {
            open_brace(i);
        } else if (c == '}') {
            if (!scopes_.empty())
                scopes_.pop_back();
            if (!device_.empty())
                device_.pop_back();
            if (!constexpr_.empty())
                constexpr_.pop_back();
            if (!kernels_.empty()) {
                if (!kernels_.back().empty())
                    edits_.push_back(Edit{i + 1, i + 1,
                                          " CUDA_EMU_REGISTER_KERNEL(" + kernels_.back() + ")" +
                                              (bounds_.back().empty()
                                                   ? std::string()
                                                   : " CUDA_EMU_KERNEL_BOUNDS(" + kernels_.back() +
                                                         ", " + bounds_.back() + ")")});
                kernels_.pop_back();
                bounds_.pop_back();
            }
        } else if (code_at(i, "<<<")) {
            ok = handle_launch(i, &next);
        } else if (c == '(' && !directive_[i] && !kernel_names_.empty()) {
            handle_void_cast(i);
        } else if ((code_at(i, "<<") || code_at(i, ">>")) && !directive_[i] && !device_.empty() &&
                   device_.back()) {
            handle_shift(i, &next);
        } else if (ident_char(c) && (i == 0 || !ident_char(s_[i - 1]))) {
            next = ident_end(i);
            std::string word = s_.substr(i, next - i);
            if (word == "__noinline__") /* no macro: see cuda_emu/defines.h */
                edits_.push_back(Edit{i, next, "__attribute__((noinline))"});
            else if (!directive_[i] && word == "__shared__")
                ok = handle_shared(i, &next);
            else if (!directive_[i] && word == "reinterpret_cast" && !kernel_names_.empty())
                handle_reinterpret_cast(i);
            else if (!directive_[i] && word == "__launch_bounds__")
                ok = handle_launch_bounds(i, &next);
            else if (!directive_[i] && (word == "if" || word == "while" || word == "for") &&
                     !device_.empty() && device_.back() && !constexpr_.back())
                handle_branch(i, word);
            else if (!directive_[i] && (word == "asm" || word == "__asm__" || word == "__asm") &&
                     !handle_asm(i, &next))
                /* Inline PTX cannot run here: a build error where it is compiled
                 * (not in a branch #if leaves out), see prelude.h. */
                edits_.push_back(Edit{i, next, "CUDA_EMU_INLINE_ASM"});
        }
        if (!ok) {
            *error = error_;
            return false;
        }
        i = next;
    }
    return true;
}

std::string Rewriter::apply() const
{
    std::vector<Edit> edits = edits_;
    std::stable_sort(edits.begin(), edits.end(),
                     [](const Edit &a, const Edit &b) { return a.begin < b.begin; });
    std::string out;
    size_t pos = 0;
    for (const Edit &e : edits) {
        if (e.begin < pos)
            continue; /* inside an edit already made (a launch inside a launch's arguments) */
        out.append(s_, pos, e.begin - pos);
        out += e.replacement;
        pos = e.end;
    }
    out.append(s_, pos, npos);
    return out;
}

} // namespace

bool rewrite_source(const std::string &text, const std::string &display_path, bool prelude,
                    const IncludeMapper &includes, std::string *out, std::string *error)
{
    /* A UTF-8 byte-order mark, which editors on Windows write and nvcc skips: it would stand
     * after the #line below, where g++ reads it as a stray character. CRLF line ends need
     * nothing: g++ reads them as nvcc does. */
    static const char bom[] = "\xEF\xBB\xBF";
    const std::string body = text.compare(0, 3, bom) == 0 ? text.substr(3) : text;
    Rewriter r(body, display_path, includes); /* (it keeps a reference: body outlives it) */
    if (!r.run(error))
        return false;
    *out = (prelude ? "#include <cuda_emu/prelude.h>\n" : "") + std::string("#line 1 ") +
           quoted(display_path) + "\n" + r.apply();
    return true;
}

} // namespace emu_rewrite
