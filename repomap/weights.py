"""Every tuned number of the ranking, beside the reason for its value.

The figures that set each value (dev-set scores, the runs behind them) are in bench/RESULTS.md
under the constant's name, "weights.NAME". Numbers marked "by hand" were chosen from what a
few maps looked like and have not been swept; change them only with both dev sets measured.
"""

# --- The file graph and the map (edges.py, ranking.py) ---

# References from the files in the chat: what they use is what the next edit touches. By hand.
FOCUS_EDGE = 50.0
# Personalization of chat files and of files the task names: they must lead even in a
# repository of thousands of files, whose base weight is 1 each. By hand.
FOCUS_FILE = 100.0
MENTIONED_FILE = 100.0
# The files search finds for the task text (after the files it names), by their place in its
# answer (1/place): the map's file ranking should be at least as good as search's.
# bench/RESULTS.md: weights.FOUND_FILE
FOUND_FILE = 100.0
# Personalization alone leaves search's first file out of the map when definitions elsewhere
# share the task's words and it matches by its bodies. So the best definition of each of the
# first found files comes first, in search's order (ranking._found_first), and a found file's
# definitions are multiplied by 1 + FOUND_LIFT/place, which brings more of them. Search is not
# guided by search. bench/RESULTS.md: weights.FOUND_LIFT
FOUND_LIFT = 20.0
# One found file per this many tokens of the budget, at least FOUND_FILES: a larger map holds
# more of search's answer, a small one still leads with several.
# bench/RESULTS.md: weights.FOUND_FILE_TOKENS, FOUND_FILES
FOUND_FILE_TOKENS = 150
FOUND_FILES = 10
# After each found file's best definition, the definitions search finds lead the map, one per
# this many tokens of the budget, at least FOUND_HITS: the lines a task changes are likelier
# among them than among the graph's best of the same files; more of them crowd out files.
# bench/RESULTS.md: weights.FOUND_HIT_TOKENS, FOUND_HITS
FOUND_HIT_TOKENS = 100
FOUND_HITS = 20
# A file whose definitions share words with the task: strong, but below a named file. By hand.
MATCHING_FILE = 10.0
# A call of `get` may mean any type's `get` method, and `x.lower()` rarely means a module's
# function `lower` when most files call `.lower()`; `Func()` is specific. By hand.
METHOD_CALL = 0.1
# References to a name the task mentions. By hand.
MENTIONED_NAME = 10.0
# A definition the task's words match gets up to half its own file's rank as if referenced,
# so it enters a small map; a definition nobody references gets a hundredth. By hand.
OWN_MATCH = 0.5
OWN_BASE = 0.01
# Private names (`_x`) and names defined in more than COMMON_NAME_FILES files (`get`,
# `__init__`) say little about which file a reference means. By hand.
PRIVATE_NAME = 0.1
COMMON_NAME_FILES = 5
# Tests, examples, vendored and generated files: they reference everything and are rarely
# what a task changes. By hand.
SECONDARY_FILE = 0.1
# Documents (Markdown, reStructuredText, AsciiDoc) that the task does not name: prose ranks
# below code; the milder of two values that score the same. bench/RESULTS.md: weights.PROSE_FILE
PROSE_FILE = 0.3
# Breadth before depth (render.breadth_first): a file's definitions beyond one per FILE_SHARE
# tokens of the budget (at least FILE_SHARE_MIN) wait until every other file's best are in,
# so a larger budget shows more files rather than every heading of one.
# bench/RESULTS.md: weights.FILE_SHARE, FILE_SHARE_MIN
FILE_SHARE = 64
FILE_SHARE_MIN = 4
# and at most this many, so that no file takes half of a large map while others wait.
# bench/RESULTS.md: weights.FILE_SHARE_MAX
FILE_SHARE_MAX = 32
# A file whose part of the map is still over this much of the budget while other files wait
# (its signatures run to many lines) has its share narrowed to what fits in it
# (render.select); the bound, not tuned. bench/RESULTS.md: weights.FILE_TOKENS_MAX
FILE_TOKENS_MAX = 0.5
# A changelog offers the map this many of its first sections (the title and the newest
# versions); older ones stay searchable and retrievable. By hand.
CHANGELOG_SECTIONS = 4
# A committed map (`repomap write`) keeps its previous order of files unless a file's best
# score beats the one before it by this factor: an edit that nudges ranks must not move whole
# sections. The smallest of the values that stop that keeps the order nearest the ranking.
# bench/RESULTS.md: weights.STABLE_ORDER
STABLE_ORDER = 1.25
# A committed map is fitted to COMMITTED_FILL of the budget, the rest left for its signatures
# to grow, and keeps the definitions it shows while they fit the budget, fill at least
# COMMITTED_HOLD of it and include every definition a map of that much would show: a
# signature that grows by a few tokens changes its own lines and nothing else.
# bench/RESULTS.md: weights.STABLE_ORDER (the churn table)
COMMITTED_FILL = 0.95
COMMITTED_HOLD = 0.90

# --- Search (search.py): BM25 with the map's rank as a prior ---

K1 = 1.2  # BM25's usual term saturation
# Length normalisation: less than BM25's usual 0.75, since coordination already favours long
# bodies. bench/RESULTS.md: weights.B
B = 0.3
NAME_WEIGHT = 3  # a definition's name says more than its body's words. By hand.
PRIOR = 0.6  # share of a hit's score that the map's rank may take away. By hand.
SECONDARY_HIT = 0.3  # tests, examples and docs code answer a query less often than the code they test
# Markdown sections: prose otherwise matches prose commit messages before code.
# bench/RESULTS.md: weights.PROSE
PROSE = 0.1
# The words of a query's first line (a task's title) weigh this much more: a title says what
# changes. bench/RESULTS.md: weights.TITLE
TITLE = 1.0
# A file whose folders or name the task's title spells out (every sub-word of one of them in
# the title: "fix: median should use sorted len" names math/median.rs) is likelier the one to
# change: its best definition gains this many times the share of the title's weight those
# words carry. Only its best definition, and only whole folders or names: lifting more pushes
# other files' symbols out. bench/RESULTS.md: weights.NAMED_FILE
NAMED_FILE = 4
# Only the best hits' files are looked at, for NAMED_FILE (their paths' words are made per
# query) and for FILE_EVIDENCE (a kernel query matches millions of definitions, and sorting
# them all by file is slow). bench/RESULTS.md: weights.FILE_CANDIDATES
FILE_CANDIDATES = 300
# A title's scope ("fix(compiler-ssr): ...", "promql: ...", words.scope) says where the change
# is, so its words count this many times more toward NAMED_FILE; more lifts every file of a
# broad scope over the named method. bench/RESULTS.md: weights.SCOPE
SCOPE = 1
# A name the task writes as code (`DropSchema`, execution_options, EffectScope: words.code_names)
# is likelier the definition to change than one its words merely match: that definition's
# score is multiplied by 1 + CODE_NAME / the number of definitions of that name (`execute` in
# every dialect says less than `DropSchema`), and QUALIFIED_NAME more when the task qualifies
# it by its class or type (`AsyncSession.execute`, ByteStream::into_bytes).
# bench/RESULTS.md: weights.CODE_NAME, QUALIFIED_NAME
CODE_NAME = 2.0
QUALIFIED_NAME = 2.0
# A definition whose body uses a name of several words that the task writes as code (a
# parameter it passes on, `adapt_on_names`; a constant it reads, `USE_CLIENT_DEFAULT`) changes
# with it more often than the task's words alone say: its score is multiplied by 1 + CODE_USE
# times the name's rarity (1 for a name one definition uses). bench/RESULTS.md: weights.CODE_USE
CODE_USE = 1.0
# Lines after which a definition ranks lower, one step per doubling, since retrieving it
# costs more; set together with FILE_EVIDENCE. bench/RESULTS.md: weights.LONG
LONG = 115
# Coordination: a definition covering more of the query's words (by rarity) gains; what makes
# a long task text work. bench/RESULTS.md: weights.COORD
COORD = 1.25
# A definition whose file holds other strong matches is likelier the one to change than one
# that matches alone (a hub type whose long text shares a few of the task's words; the stray
# function of another package): each hit's score is multiplied by 1 + FILE_EVIDENCE times the
# sum of its file's FILE_EVIDENCE_HITS best scores, as a share of the best file's sum.
# bench/RESULTS.md: weights.FILE_EVIDENCE, FILE_EVIDENCE_HITS
FILE_EVIDENCE = 1.0
FILE_EVIDENCE_HITS = 3
# Constants and module declarations: data and pointers answer a query less often than code.
# bench/RESULTS.md: weights.DATA
DATA = 0.5
