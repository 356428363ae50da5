#!/usr/bin/env bash
# paths.sh - every path of the checkout that the README and the grader's and common's headers
# name exists: a file renamed or removed leaves no reader looking for it.
#
#   tests/docs/paths.sh [FILE ...]     (default: README.md, tests/RESULTS.md, the grader's READMEs and headers,
#                                       common/*.h, the labs' contract headers); run from the
#                                       repository root
#
# A path is a word starting with grader/, common/, labs/, solutions/, tests/ or slides/. A
# pattern must match at least one path: <name> and `name` (as in NN-name/name.cu) stand for
# one lab's name, NN for two digits, any other <...> and * for any text. Make's % patterns
# and $(...) are left alone, and so are the files an instructor may add (grader/course.conf).
# In a student kit (its solutions/ holds only a README: make dist leaves the sources out)
# solutions' paths are not checked.
set -u
cd "$(dirname "$0")/../.."
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(README.md tests/RESULTS.md grader/README.md grader/*/README.md grader/*.h grader/*/*.h common/*.h grader/labs/*/*.h)
checked=0 missing=0
while IFS=: read -r file line path; do
    case $path in
    *'%'*|*'$'*|*'{'*|grader/course.conf) continue ;;
    solutions/*) compgen -G 'solutions/[0-9][0-9]-*' >/dev/null || continue ;;
    esac
    found=""
    for lab in $(ls grader/labs | sed 's/^[0-9]*-//'); do
        glob=$(sed -E "s/<name>/$lab/g; s/<[^>]*>/*/g; s/NN/[0-9][0-9]/g; s#-name(/|\$)#-$lab\\1#g; s#/name\\.#/$lab.#g" <<<"$path")
        if compgen -G "$glob" >/dev/null; then found=1; break; fi
    done
    checked=$((checked + 1))
    if [ -z "$found" ]; then
        echo "FAIL $file:$line names $path, which does not exist"
        missing=$((missing + 1))
    fi
done < <(grep -HonE '(^|[^A-Za-z0-9_./<>-])(grader|common|labs|solutions|tests|slides)/[A-Za-z0-9_./<>*-]*[A-Za-z0-9_/>*-]' "${files[@]}" |
         sed -E 's/^([^:]*):([0-9]+):[^A-Za-z]*/\1:\2:/' | sort -u)
echo "docs: $checked paths named in ${#files[@]} files, $missing missing"
[ "$missing" -eq 0 ]
