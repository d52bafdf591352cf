//! The table itself: one entry per program, with its options, operands and examples.

use super::{awk, environment, find, git, hostname, sed, sqlite, tar, Known, Operands};

/// The programs known to run no other program (given the options each entry names).
pub const KNOWN: &[Known] = &[
    Known {
        names: &["cat", "rev"],
        operands: Operands::Read,
        example: "cat README.md",
        ..Known::NONE
    },
    Known {
        names: &["tac"],
        operands: Operands::Read,
        valued: "s",
        long_valued: &["separator"],
        example: "tac README.md",
        ..Known::NONE
    },
    Known {
        names: &["nl"],
        operands: Operands::Read,
        valued: "bdfhilnsvw",
        example: "nl -ba README.md",
        ..Known::NONE
    },
    Known {
        names: &["head", "tail"],
        operands: Operands::Read,
        valued: "cns",
        long_valued: &[
            "bytes",
            "lines",
            "sleep-interval",
            "pid",
            "max-unchanged-stats",
        ],
        example: "head -n 5 README.md",
        ..Known::NONE
    },
    Known {
        names: &["wc"],
        operands: Operands::Read,
        long_read_valued: &["files0-from"],
        example: "wc -l README.md",
        ..Known::NONE
    },
    Known {
        names: &["ls", "dir", "vdir"],
        operands: Operands::Read,
        valued: "ITw",
        long_valued: &[
            "block-size",
            "format",
            "hide",
            "ignore",
            "indicator-style",
            "quoting-style",
            "sort",
            "tabsize",
            "time",
            "time-style",
            "width",
        ],
        example: "ls -la src",
        ..Known::NONE
    },
    Known {
        names: &["grep", "egrep", "fgrep"],
        operands: Operands::PatternThenRead,
        valued: "emABCdD",
        long_valued: &[
            "regexp",
            "max-count",
            "after-context",
            "before-context",
            "context",
            "label",
            "include",
            "exclude",
            "exclude-dir",
            "binary-files",
            "devices",
            "directories",
            "group-separator",
        ],
        read_valued: "f",
        long_read_valued: &["file", "exclude-from"],
        example: "grep -rn main src",
        ..Known::NONE
    },
    Known {
        names: &["rg"],
        operands: Operands::PatternThenRead,
        valued: "eABCgjmMtTErd",
        long_valued: &[
            "regexp",
            "after-context",
            "before-context",
            "context",
            "glob",
            "iglob",
            "threads",
            "max-count",
            "max-columns",
            "type",
            "type-not",
            "type-add",
            "type-clear",
            "encoding",
            "replace",
            "colors",
            "color",
            "sort",
            "sortr",
            "max-depth",
            "max-filesize",
            "context-separator",
            "field-match-separator",
            "field-context-separator",
            "path-separator",
            "dfa-size-limit",
            "regex-size-limit",
            "engine",
            "hyperlink-format",
            "generate",
        ],
        read_valued: "f",
        long_read_valued: &["file", "ignore-file"],
        runs: "z",
        long_runs: &["pre", "pre-glob", "search-zip", "hostname-bin"],
        example: "rg -n 'fn main' src",
        counter: "rg --pre /bin/touch foo .",
        ..Known::NONE
    },
    Known {
        names: &["find"],
        operands: Operands::Find,
        check: Some(find),
        example: "find . -name '*.rs' -type f",
        counter: "find . -name x -delete",
        ..Known::NONE
    },
    Known {
        names: &["sort"],
        operands: Operands::Read,
        valued: "kStT",
        long_valued: &[
            "key",
            "buffer-size",
            "field-separator",
            "batch-size",
            "parallel",
        ],
        long_read_valued: &["files0-from", "random-source"],
        writes: "oT",
        long_writes: &["output", "temporary-directory"],
        long_runs: &["compress-program"],
        example: "sort -u -k 2 README.md",
        counter: "sort -o ../elsewhere/out x",
        ..Known::NONE
    },
    Known {
        names: &["uniq"],
        operands: Operands::ReadAtMost(1),
        valued: "fsw",
        long_valued: &[
            "skip-fields",
            "skip-chars",
            "check-chars",
            "group",
            "all-repeated",
        ],
        example: "uniq -c README.md",
        counter: "uniq README.md out.txt",
        ..Known::NONE
    },
    Known {
        names: &["cut"],
        operands: Operands::Read,
        valued: "bcdf",
        long_valued: &[
            "bytes",
            "characters",
            "delimiter",
            "fields",
            "output-delimiter",
        ],
        example: "cut -d : -f 1 README.md",
        ..Known::NONE
    },
    Known {
        names: &["paste", "comm", "fold", "expand", "unexpand"],
        operands: Operands::Read,
        valued: "dwt",
        long_valued: &["delimiters", "output-delimiter", "width", "tabs"],
        example: "paste -d , a.txt b.txt",
        ..Known::NONE
    },
    Known {
        names: &["join"],
        operands: Operands::Read,
        valued: "aejot12",
        example: "join -t , a.txt b.txt",
        ..Known::NONE
    },
    Known {
        names: &["column"],
        operands: Operands::Read,
        valued: "csoNRWHOEl",
        example: "column -t README.md",
        ..Known::NONE
    },
    Known {
        names: &["cmp"],
        operands: Operands::Read,
        valued: "in",
        long_valued: &["bytes", "ignore-initial"],
        example: "cmp a.txt b.txt",
        ..Known::NONE
    },
    Known {
        names: &["diff"],
        operands: Operands::Read,
        valued: "CFUILWx",
        long_valued: &[
            "context",
            "unified",
            "label",
            "ignore-matching-lines",
            "show-function-line",
            "width",
            "tabsize",
            "line-format",
            "old-line-format",
            "new-line-format",
            "unchanged-line-format",
            "old-group-format",
            "new-group-format",
            "changed-group-format",
            "unchanged-group-format",
            "horizon-lines",
            "color",
            "palette",
            "bytes",
            "ignore-initial",
        ],
        read_valued: "SX",
        long_read_valued: &["from-file", "to-file", "starting-file", "exclude-from"],
        example: "diff -u a.txt b.txt",
        ..Known::NONE
    },
    Known {
        names: &["tree"],
        operands: Operands::Read,
        valued: "LPIH",
        long_valued: &[
            "charset",
            "filelimit",
            "timefmt",
            "sort",
            "hintro",
            "houtro",
        ],
        long_read_valued: &["fromfile"],
        writes: "oR",
        example: "tree -L 2 src",
        counter: "tree -o ../out.txt",
        ..Known::NONE
    },
    Known {
        names: &["file"],
        operands: Operands::Read,
        valued: "eFP",
        long_valued: &["exclude", "exclude-quiet", "separator", "parameter"],
        read_valued: "fm",
        long_read_valued: &["files-from", "magic-file"],
        writes: "C",
        long_writes: &["compile"],
        example: "file README.md",
        counter: "file -C -m x.magic",
        ..Known::NONE
    },
    Known {
        names: &["stat"],
        operands: Operands::Read,
        valued: "c",
        long_valued: &["format", "printf", "cached"],
        example: "stat -c %s README.md",
        ..Known::NONE
    },
    Known {
        names: &["du"],
        operands: Operands::Read,
        valued: "Bdt",
        read_valued: "X",
        long_valued: &[
            "block-size",
            "max-depth",
            "threshold",
            "time-style",
            "exclude",
            "time",
        ],
        long_read_valued: &["files0-from", "exclude-from"],
        example: "du -sh src",
        ..Known::NONE
    },
    Known {
        names: &["df"],
        operands: Operands::Read,
        valued: "BtxF",
        long_valued: &["block-size", "output", "type", "exclude-type"],
        example: "df -h .",
        ..Known::NONE
    },
    Known {
        names: &["date"],
        operands: Operands::Text,
        valued: "dIR",
        long_valued: &["date", "iso-8601", "rfc-3339", "resolution"],
        read_valued: "fr",
        long_read_valued: &["file", "reference"],
        writes: "s",
        long_writes: &["set"],
        example: "date -u +%Y-%m-%d",
        counter: "date -s '2000-01-01'",
        ..Known::NONE
    },
    Known {
        names: &[
            "echo", "printf", "true", "false", "pwd", "basename", "dirname", "seq", "whoami", "id",
            "groups", "uname", "arch", "nproc", "tty", "which", "expr", "yes", "sleep", "locale",
            "getconf", "factor", "numfmt", "tr", "logname", "users", "uptime",
        ],
        operands: Operands::Text,
        valued: "sfwtF",
        example: "basename src/main.rs",
        ..Known::NONE
    },
    Known {
        names: &["realpath", "readlink"],
        operands: Operands::Read,
        long_valued: &["relative-to", "relative-base"],
        example: "realpath src",
        ..Known::NONE
    },
    Known {
        names: &[
            "md5sum",
            "sha1sum",
            "sha224sum",
            "sha256sum",
            "sha384sum",
            "sha512sum",
            "b2sum",
            "cksum",
            "sum",
        ],
        operands: Operands::Read,
        valued: "al",
        long_valued: &["algorithm", "length"],
        example: "sha256sum README.md",
        ..Known::NONE
    },
    Known {
        names: &["od"],
        operands: Operands::Read,
        valued: "AjNSt",
        long_valued: &[
            "address-radix",
            "skip-bytes",
            "read-bytes",
            "strings",
            "format",
        ],
        example: "od -c README.md",
        ..Known::NONE
    },
    Known {
        names: &["hexdump", "hd"],
        operands: Operands::Read,
        valued: "ens",
        read_valued: "f",
        example: "hexdump -C README.md",
        ..Known::NONE
    },
    Known {
        names: &["strings"],
        operands: Operands::Read,
        valued: "ntes",
        long_valued: &["bytes", "radix", "encoding", "output-separator"],
        example: "strings README.md",
        ..Known::NONE
    },
    Known {
        names: &["base32", "base64", "basenc"],
        operands: Operands::Read,
        valued: "w",
        long_valued: &["wrap"],
        example: "base64 README.md",
        ..Known::NONE
    },
    Known {
        names: &["xxd"],
        operands: Operands::ReadAtMost(1),
        valued: "cglosn",
        example: "xxd -l 16 README.md",
        counter: "xxd README.md out.hex",
        ..Known::NONE
    },
    Known {
        names: &["hostname"],
        operands: Operands::Custom,
        writes: "Fb",
        long_writes: &["file", "boot"],
        check: Some(hostname),
        example: "hostname -s",
        counter: "hostname other",
        ..Known::NONE
    },
    Known {
        names: &["env"],
        operands: Operands::Text,
        prints_secrets: true,
        check: Some(environment),
        example: "env",
        ..Known::NONE
    },
    Known {
        names: &["printenv"],
        operands: Operands::Text,
        prints_secrets: true,
        example: "printenv LANG",
        ..Known::NONE
    },
    Known {
        names: &["sed"],
        operands: Operands::PatternThenRead,
        valued: "el",
        long_valued: &["expression", "line-length"],
        read_valued: "f",
        long_read_valued: &["file"],
        check: Some(sed),
        example: "sed -n '1,5p' README.md",
        counter: "sed -i 's/a/b/' README.md",
        ..Known::NONE
    },
    Known {
        names: &["awk", "gawk", "mawk"],
        operands: Operands::PatternThenRead,
        valued: "vFe",
        read_valued: "f",
        check: Some(awk),
        example: "awk '{ print $1 }' README.md",
        counter: "awk 'BEGIN { system(\"touch x\") }'",
        ..Known::NONE
    },
    Known {
        names: &["git"],
        operands: Operands::Custom,
        check: Some(git),
        example: "git log --oneline -5",
        counter: "git commit -m x",
        ..Known::NONE
    },
    Known {
        names: &["tar", "gtar"],
        operands: Operands::Read,
        valued: "CbHKNTVXg",
        read_valued: "f",
        long_read_valued: &["file"],
        check: Some(tar),
        example: "tar -tzf a.tgz",
        counter: "tar -czf out.tgz src",
        ..Known::NONE
    },
    Known {
        names: &["touch"],
        operands: Operands::Edit,
        valued: "dt",
        long_valued: &["date", "time"],
        read_valued: "r",
        long_read_valued: &["reference"],
        reads_only: false,
        example: "touch new.txt",
        ..Known::NONE
    },
    Known {
        names: &["mkdir"],
        operands: Operands::Edit,
        valued: "m",
        long_valued: &["mode", "context"],
        reads_only: false,
        example: "mkdir -p build/out",
        ..Known::NONE
    },
    Known {
        names: &["cp", "mv"],
        operands: Operands::Copy,
        valued: "S",
        long_valued: &[
            "suffix", "backup", "sparse", "reflink", "preserve", "update",
        ],
        edit_valued: "t",
        long_edit_valued: &["target-directory"],
        reads_only: false,
        example: "cp a.txt b.txt",
        ..Known::NONE
    },
    Known {
        names: &[
            "rm", "rmdir", "ln", "chmod", "chown", "chgrp", "truncate", "shred", "tee", "unlink",
            "mktemp",
        ],
        operands: Operands::Edit,
        reads_only: false,
        example: "ln -s a.txt b.txt",
        ..Known::NONE
    },
    Known {
        names: &["split", "csplit"],
        operands: Operands::Edit,
        valued: "abClnf",
        long_valued: &[
            "suffix-length",
            "bytes",
            "line-bytes",
            "lines",
            "number",
            "prefix",
        ],
        long_runs: &["filter"],
        reads_only: false,
        example: "split -l 10 a.txt part-",
        counter: "split --filter='touch y' a.txt",
        ..Known::NONE
    },
    Known {
        names: &["install"],
        operands: Operands::Edit,
        valued: "gmot",
        long_runs: &["strip-program", "strip"],
        runs: "s",
        reads_only: false,
        example: "install -m 644 a.txt b.txt",
        counter: "install -s a.txt b.txt",
        ..Known::NONE
    },
    Known {
        names: &["curl"],
        operands: Operands::Text,
        reads_only: false,
        example: "curl -fsSL http://127.0.0.1:9/x",
        ..Known::NONE
    },
    Known {
        names: &["sqlite3"],
        operands: Operands::Custom,
        reads_only: false,
        check: Some(sqlite),
        example: "sqlite3 db.sqlite 'select 1'",
        counter: "sqlite3 db.sqlite '.shell touch y'",
        ..Known::NONE
    },
];
