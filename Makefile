# csvfreeze: build, try, test, install.
#   make run      build (release) and open a sample file in the viewer
#   make test     build and run the whole test suite (TEST_ARGS="--filter X" for a part)
#   make install  install the binary, the man page and shell completions under PREFIX (default /usr/local)
PREFIX ?= /usr/local
SWIFT ?= swift

.PHONY: deps build release run test check-man install uninstall clean

deps:
	@sh scripts/install-deps.sh

build: deps
	$(SWIFT) build

# The Swift libraries are linked in (--static-swift-stdlib): a start then loads none of
# them, and the binary runs without the toolchain (see DECISIONS.md).
release: deps
	$(SWIFT) build -c release --static-swift-stdlib

run: release
	.build/release/csvfreeze SampleData/people.csv

check-man: deps
	@out=$$(groff -man -ww -z man/csvfreeze.1 2>&1); if [ -n "$$out" ]; then echo "$$out"; exit 1; fi

# The tests' temporary files go to a folder of their own, removed when the run ends
# (however it ends): a run leaves nothing in /tmp.
test: build check-man
	@dir=$$(mktemp -d "$${TMPDIR:-/tmp}/csvfreeze-test.XXXXXX") && trap 'rm -rf "$$dir"' EXIT && \
		trap 'exit 130' INT TERM && \
		CSVFREEZE_BIN="$(CURDIR)/.build/debug/csvfreeze" TMPDIR="$$dir" $(SWIFT) test $(TEST_ARGS)

COMPLETIONS = $(DESTDIR)$(PREFIX)/share/bash-completion/completions/csvfreeze \
              $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_csvfreeze \
              $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/csvfreeze.fish

install: release
	install -d "$(DESTDIR)$(PREFIX)/bin" "$(DESTDIR)$(PREFIX)/share/man/man1" \
		"$(DESTDIR)$(PREFIX)/share/bash-completion/completions" "$(DESTDIR)$(PREFIX)/share/zsh/site-functions" \
		"$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d"
	install -m 755 .build/release/csvfreeze "$(DESTDIR)$(PREFIX)/bin/csvfreeze"
	install -m 644 man/csvfreeze.1 "$(DESTDIR)$(PREFIX)/share/man/man1/csvfreeze.1"
	.build/release/csvfreeze --generate-completion-script bash > "$(DESTDIR)$(PREFIX)/share/bash-completion/completions/csvfreeze"
	.build/release/csvfreeze --generate-completion-script zsh > "$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_csvfreeze"
	.build/release/csvfreeze --generate-completion-script fish > "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/csvfreeze.fish"

uninstall:
	rm -f "$(DESTDIR)$(PREFIX)/bin/csvfreeze" "$(DESTDIR)$(PREFIX)/share/man/man1/csvfreeze.1" $(COMPLETIONS)

clean:
	rm -rf .build
