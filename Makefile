# Two commands: `make run` opens the shell on the sample store, `make test`
# runs the whole suite. Both install the system libraries they need first;
# `make test` also installs PostgreSQL's server programs (Debian's
# `postgresql`): the PostgreSQL tests start a throwaway cluster of their own.
SWIFT ?= swift
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
SAMPLE_STORE := .build/samples/people.sqlite
MRQ := .build/debug/mrq

.PHONY: run test build release deps sample-store bench clean install install-files uninstall

deps:
	@missing=""; \
	[ -f /usr/include/editline/readline.h ] || missing="$$missing libedit-dev"; \
	[ -f /usr/include/sqlite3.h ] || missing="$$missing libsqlite3-dev"; \
	[ -f /usr/include/zlib.h ] || missing="$$missing zlib1g-dev"; \
	[ -f /usr/include/libdeflate.h ] || missing="$$missing libdeflate-dev"; \
	[ -f /usr/include/postgresql/libpq-fe.h ] || missing="$$missing libpq-dev"; \
	if [ -n "$$missing" ]; then \
		echo "installing$$missing"; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq $$missing; \
	fi

build: deps
	$(SWIFT) build

sample-store: build
	@mkdir -p .build/samples
	@if [ ! -f $(SAMPLE_STORE) ]; then \
		$(MRQ) --model Samples/People.xcdatamodeld --store $(SAMPLE_STORE) Samples/people-load.mrq >/dev/null && \
		echo "built the sample store $(SAMPLE_STORE)"; \
	fi

run: sample-store
	@$(MRQ) --model Samples/People.xcdatamodeld --store $(SAMPLE_STORE)

test: deps
	@command -v tmux >/dev/null || { echo "installing tmux (for the terminal test)"; $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq tmux; }
	@command -v python3 >/dev/null || { echo "installing python3 (for the hostile corpus)"; $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq python3; }
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null || { echo "installing postgresql (the PostgreSQL tests start a cluster of their own)"; \
		$(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql; }
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	@for t in $(FUZZ_TARGETS); do .build/debug/mrq-fuzz $$t Fuzz/$$t || exit 1; done
	python3 Tests/Hostile/hostile.py --mrq $(MRQ)

# Coverage-guided fuzzing with libFuzzer: the targets of Sources/mrq-fuzz
# (predicate, statement, JSON and model parsers, XML store files, compiled
# models, Core Data stores described as text, and archived attribute
# values), built instrumented in
# release, each run for FUZZ_SECONDS from its seed corpus in Fuzz/ (new
# inputs it finds go to $(FUZZ_SCRATCH)/corpus, crashes to
# $(FUZZ_SCRATCH)/crashes; `mrq-fuzz TARGET FILE` replays one). The seeds
# themselves replay in `make test`.
FUZZ_TARGETS := predicate statement json model xmlstore mom store archived
FUZZ_SECONDS ?= 15
FUZZ_SCRATCH ?= .build-fuzz
.PHONY: fuzz
fuzz: deps
	$(SWIFT) build -c release --scratch-path $(FUZZ_SCRATCH) --product mrq-fuzz \
		-Xswiftc -sanitize=fuzzer -Xswiftc -use-ld=lld -Xlinker --allow-multiple-definition \
		-Xlinker --undefined=LLVMFuzzerRunDriver -Xlinker --export-dynamic-symbol=LLVMFuzzerRunDriver
	@mkdir -p $(FUZZ_SCRATCH)/crashes
	@for t in $(FUZZ_TARGETS); do \
		mkdir -p $(FUZZ_SCRATCH)/corpus/$$t; \
		echo "fuzzing $$t for $(FUZZ_SECONDS) s"; \
		$(FUZZ_SCRATCH)/release/mrq-fuzz $$t -max_total_time=$(FUZZ_SECONDS) -timeout=20 \
			-rss_limit_mb=4096 -max_len=65536 -print_final_stats=1 \
			-artifact_prefix=$(FUZZ_SCRATCH)/crashes/$$t- $(FUZZ_SCRATCH)/corpus/$$t Fuzz/$$t \
			2>$(FUZZ_SCRATCH)/$$t.log || { tail -40 $(FUZZ_SCRATCH)/$$t.log; exit 1; }; \
		grep -E "stat::number_of_executed_units|stat::new_units_added" $(FUZZ_SCRATCH)/$$t.log; \
	done

# The mrq to ship: release, with the Swift runtime and Foundation linked
# in. Loading and relocating them as a dozen shared libraries costs ~7 ms at
# every launch, more than `mrq -c 'count Person'` on 200k rows spends
# on the query.
release: deps
	$(SWIFT) build -c release --static-swift-stdlib --product mrq

clean:
	rm -rf .build

# `make install` puts the release mrq in $(PREFIX)/bin, its manual page in
# $(PREFIX)/share/man/man1 and its completion scripts (bash, zsh, fish)
# where those shells look; DESTDIR stages it for a package. install-files
# does the copying, of the binary in MRQ_BIN, and is what the test runs.
PREFIX ?= /usr/local
MRQ_BIN ?= .build/release/mrq
BINDIR = $(DESTDIR)$(PREFIX)/bin
MANDIR = $(DESTDIR)$(PREFIX)/share/man/man1
BASH_COMPLETIONS = $(DESTDIR)$(PREFIX)/share/bash-completion/completions
ZSH_COMPLETIONS = $(DESTDIR)$(PREFIX)/share/zsh/site-functions
FISH_COMPLETIONS = $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d

install: release
	@$(MAKE) --no-print-directory install-files

install-files:
	install -d $(BINDIR) $(MANDIR) $(BASH_COMPLETIONS) $(ZSH_COMPLETIONS) $(FISH_COMPLETIONS)
	install -m 755 $(MRQ_BIN) $(BINDIR)/mrq
	install -m 644 man/mrq.1 $(MANDIR)/mrq.1
	$(MRQ_BIN) --generate-completion-script bash > $(BASH_COMPLETIONS)/mrq
	$(MRQ_BIN) --generate-completion-script zsh > $(ZSH_COMPLETIONS)/_mrq
	$(MRQ_BIN) --generate-completion-script fish > $(FISH_COMPLETIONS)/mrq.fish

uninstall:
	rm -f $(BINDIR)/mrq $(MANDIR)/mrq.1 $(BASH_COMPLETIONS)/mrq $(ZSH_COMPLETIONS)/_mrq $(FISH_COMPLETIONS)/mrq.fish

# The benchmark suite (issue 8): its own package in Benchmarks/, so GRDB, the
# Swift peer it is compared with, never becomes a dependency of mrq.
BENCH_SCRATCH := Benchmarks/.build

bench: deps release
	$(SWIFT) build -c release --package-path Benchmarks --scratch-path $(BENCH_SCRATCH)
	$(BENCH_SCRATCH)/release/mrq-bench

# The long run behind `make test`'s random tests (issue 16): 100,000
# model-based context sequences, 20,000 constraint sequences, 2,000 rounds of
# each save race and a long shell fuzz (MRQ_SOAK=1), then the concurrency
# and save tests again under the thread sanitizer, then a minute of fuzzing
# per libFuzzer target. Takes an hour or more.
.PHONY: soak
soak: deps
	MRQ_SOAK=1 $(SWIFT) test
	MRQ_SOAK=1 $(SWIFT) test --sanitize=thread --scratch-path .build-tsan \
		--filter 'ConcurrencyTests|SiblingSaveTests|SavingTests|OffQueueReleaseTests'
	$(MAKE) fuzz FUZZ_SECONDS=60

# The regression guard (issue 35). `make bench-compare BASE=<commit>` builds
# mrq-bench in release against mrq at BASE (in .build/bench-base/<sha>, its
# builds kept) and against the working tree, both with the working tree's
# harness, then runs each workload of both in turn, ROUNDS rounds, and prints
# per workload the ratio B/A of mrq's time to the C baseline of its own
# process, its spread, and a flag when every round of one build is beyond
# every round of the other; for a, b and c also mrq's time over GRDB's in
# the same processes. WORKLOADS: letters or names of a. insert, b. fetch,
# c. filter, d. import, e. parse, w. corpus (the largest model opened with
# no model, every entity counted); SCALE: compare (50k people), smoke, full
# or a number of people.
BASE ?=
WORKLOADS ?= a,b,c,d,e,w
ROUNDS ?= 5
SCALE ?= compare
.PHONY: bench-compare
bench-compare: deps
	SWIFT=$(SWIFT) Benchmarks/compare.sh "$(BASE)" --workloads $(WORKLOADS) --rounds $(ROUNDS) --scale $(SCALE)

# The instruction-count check: parse + translate, fetch 10k, insert 10k,
# filter, import 2k, shellimport (the m row's shell import + save, 5k) and
# model (the w row's open with the stored model),
# each counted by valgrind's callgrind in the release build of Benchmarks/,
# against Benchmarks/instructions-baseline.txt; it fails when a path exceeds
# its count by more than INSTRUCTIONS_TOLERANCE percent.
# Counts depend on the compiler and the machine: `make
# bench-instructions-update` re-records them. CI runs it after bench-smoke.
INSTRUCTIONS_TOLERANCE ?= 3
INSTRUCTIONS_BASELINE := Benchmarks/instructions-baseline.txt
.PHONY: bench-instructions bench-instructions-update valgrind
valgrind:
	@command -v valgrind >/dev/null || { echo "installing valgrind (for the instruction counts)"; $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq valgrind; }

bench-instructions: deps valgrind
	$(SWIFT) build -c release --package-path Benchmarks --scratch-path $(BENCH_SCRATCH) --product mrq-bench
	$(BENCH_SCRATCH)/release/mrq-bench --instructions $(INSTRUCTIONS_BASELINE) --tolerance $(INSTRUCTIONS_TOLERANCE)

bench-instructions-update: deps valgrind
	$(SWIFT) build -c release --package-path Benchmarks --scratch-path $(BENCH_SCRATCH) --product mrq-bench
	$(BENCH_SCRATCH)/release/mrq-bench --instructions $(INSTRUCTIONS_BASELINE) --update

# Every workload once on a tenth of the data: a check for CI that the
# suite still builds and runs, not a measurement.
.PHONY: bench-smoke
bench-smoke: deps
	$(SWIFT) build -c release --package-path Benchmarks --scratch-path $(BENCH_SCRATCH)
	$(BENCH_SCRATCH)/release/mrq-bench --smoke

# The DocC documentation of the four libraries (swift-docc-plugin), each a
# static site in .build/docs/<Target>: serve the folder, e.g. with
# `python3 -m http.server -d .build/docs`, and open
# /Predicates/documentation/predicates/ (or objectstore, activerecord).
DOC_TARGETS := Predicates ObjectStore ObjectStorePostgres ActiveRecord
.PHONY: docs
docs: deps
	@mkdir -p .build/docs
	@for t in $(DOC_TARGETS); do \
		$(SWIFT) package --allow-writing-to-directory .build/docs generate-documentation \
			--target $$t --output-path .build/docs/$$t \
			--transform-for-static-hosting --hosting-base-path $$t || exit 1; \
	done
