"""Every tuned number of the ranking, beside the reason for its value and the figure that set it.

"Dev set" is ../shared/eval/dev-tasks.jsonl (150 tasks, six small repositories) scored by
bench/localize.py; S@5 is search's symbol hit@5, R@1 its first file, mapF the share of gold
files shown in a 1,024-token map. Numbers marked "by hand" were chosen from what a few maps
looked like and have not been swept; change them only with both dev sets measured.
"""

# --- The file graph and the map (graph.py, ranking.py) ---

# References from the files in the chat: what they use is what the next edit touches. By hand.
FOCUS_EDGE = 50.0
# Personalization of chat files and of files the task names: they must lead even in a
# repository of thousands of files, whose base weight is 1 each. By hand.
FOCUS_FILE = 100.0
MENTIONED_FILE = 100.0
# The files search finds for the task text (after the files it names), by their place in its
# answer (1/place): the map's file ranking should be at least as good as search's. Large dev
# set @1,024 mapF 0.460 -> 0.519 (prometheus 0.611 -> 0.700, sqlalchemy 0.339 -> 0.439),
# @4,096 0.679 -> 0.687; small set mapF 0.931 -> 0.940 (chi 1.000 -> 0.973, jinja mapS 0.524 ->
# 0.484). At 30 (without the named files first) the small set's mapF fell to 0.922.
FOUND_FILE = 100.0
# Personalization alone left search's first file out of the map for 10 of the large set's 120
# tasks: definitions elsewhere whose names share the task's words outscored a file that matched
# by its bodies. So the best definition of each of the first found files comes first, in
# search's order (graph._found_first), and a found file's definitions are multiplied by
# 1 + FOUND_LIFT/place, which brings more of them. Large dev set mapF / mapS @1,024, then
# @4,096, with 10 found files: before 0.519 / 0.324, 0.687 / 0.444; lift 20 alone 0.665 / 0.421,
# 0.796 / 0.549 (10: 0.661, 0.782); best definition first alone 0.794 / 0.411, 0.831 / 0.496;
# both 0.782 / 0.442, 0.828 / 0.566 (two definitions first 0.779 / 0.447, 0.828 / 0.567, but
# httpx's mapS fell 0.557 -> 0.517). Small set, both: mapF 0.940 -> 0.971, mapS 0.618 -> 0.662,
# @4,096 0.983 -> 0.986, 0.855 -> 0.882, no repository lower on any column. Search is not
# guided by search, so its columns do not move.
FOUND_LIFT = 20.0
# One found file per this many tokens of the budget, at least FOUND_FILES (10 at 1,024, 27 at
# 4,096): a larger map holds more of search's answer, a small one still leads with several.
# Large set @4,096 mapF / mapS: 0.828 / 0.566 with 10 files, 0.874 / 0.590 at 200 tokens, 0.887
# / 0.583 at 150 (nushell 0.894 -> 0.939, prometheus 0.878 -> 0.889; mapS prometheus 0.573 ->
# 0.555, sqlalchemy 0.452 -> 0.435; all gold files shown 102 of 120 tasks, 100 at 200). The
# small set @4,096 is the same at 150 and 200 in every column; 128 lowered jinja mapS 0.783 ->
# 0.763 for large mapF 0.899, and 100 zod mapF 0.987 -> 0.960 (one task's file, 51st in
# search's answer, crowded out). Leaving out found files below a tenth of the first hit's score
# changed nothing. @1,024, 10 files rather than 5 gave 0.639 -> 0.683.
FOUND_FILE_TOKENS = 150
FOUND_FILES = 10
# After each found file's best definition, the definitions search finds lead the map, one per
# this many tokens of the budget, at least FOUND_HITS (20 at 1,024, 40 at 4,096): the lines a
# task changes are likelier among them than among the graph's best of the same files. mapS
# (and mapF) @1,024 / @4,096: small set 0.663 -> 0.849 (0.971 -> 0.973) / 0.889 -> 0.955
# (0.988); large set 0.475 -> 0.597 (0.831 -> 0.824: prometheus 0.878 -> 0.867, vue 0.833 ->
# 0.817) / 0.583 -> 0.759 (0.887). A fixed 20 gave large @4,096 mapS 0.715; one per 50 tokens
# (81 at 4,096) 0.785 and mapF 0.903, but crowded a zod task's file out (small mapF 0.988 ->
# 0.981, zod 1.000 -> 0.960); 5 and 10 hits at 1,024 gave small mapS 0.773 and 0.797.
FOUND_HIT_TOKENS = 100
FOUND_HITS = 20
# A file whose definitions share words with the task: strong, but below a named file. By hand.
MATCHING_FILE = 10.0
# A call of `get` may mean any type's `get` method, and `x.lower()` rarely means a module's
# function `lower` when most files call `.lower()`; `Func()` is specific. By hand (9f67c09).
METHOD_CALL = 0.1
# References to a name the task mentions. By hand.
MENTIONED_NAME = 10.0
# A definition the task's words match gets up to half its own file's rank as if referenced,
# so it enters a small map; a definition nobody references gets a hundredth. By hand (89cbffe).
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
# below code. With section titles no longer taken for identifiers (words.Names), dev set
# mapF @1,024 0.861 -> 0.922 (koa 0.807 -> 0.987, fd 0.840 -> 0.920), mapS 0.538 -> 0.598,
# the same at 0.1 and 0.3; 0.3 is the milder. Large dev set, with the slugs and rst sections of
# the same commit: mapF @1,024 0.444 -> 0.460 (prometheus 0.567 -> 0.611, vue 0.633 -> 0.650).
PROSE_FILE = 0.3
# Breadth before depth (render.breadth): a file's definitions beyond one per FILE_SHARE
# tokens of the budget (at least FILE_SHARE_MIN) wait until every other file's best are in,
# so a larger budget shows more files rather than every heading of one. Dev set @1,024
# mapF 0.922 -> 0.931, mapS 0.598 -> 0.606 (httpx 0.887 -> 0.927; zod mapS 0.397 -> 0.383);
# large dev set @1,024 0.460 -> 0.457 (that run also tagged Go var blocks, since left out).
FILE_SHARE = 64
FILE_SHARE_MIN = 4
# and at most this many, so that no file takes half of a 4,096-token map while others wait:
# zod's types.ts took up to 71% there, httpx's _client.py 81%. Maps of the dev sets @4,096 with
# a file over half: small 15 -> 2 (both httpx's _client.py, whose signatures run to many lines),
# large 2 -> 0; mapS @4,096 0.957 -> 0.956 (zod 0.952 -> 0.929, httpx 0.973 -> 0.987), large
# 0.810 -> 0.808, mapF the same. 1,024-token maps keep their 16. Capping by FILE_SHARE = 128
# instead cost mapS @1,024 (zod 0.743 -> 0.642).
FILE_SHARE_MAX = 32
# A file whose part of the map is still over this much of the budget while other files wait
# (its signatures run to many lines: httpx's _client.py took 71% of a 4,096-token map with its
# 32) has its share narrowed to what fits in it (render.select); the bound, not tuned.
# Dev-set maps with a file over half: small @4,096 2 -> 0, @1,024 26 -> 6; large @4,096 0.
# Every score is the same but small mapS @1,024 0.877 -> 0.869: zod 0.743 -> 0.694, one task
# whose types.ts (ZodString) gives up room to deno/lib's copies.
FILE_TOKENS_MAX = 0.5
# A changelog offers the map this many of its first sections (the title and the newest
# versions); older ones stay searchable and retrievable. By hand.
CHANGELOG_SECTIONS = 4
# A committed map (`repomap write`) keeps its previous order of files unless a file's best
# score beats the one before it by this factor: an edit that nudges ranks must not move whole
# sections. bench/churn.py, 100 signature edits each on flask 3.1.0 and gin 1.8.1 at 512 and
# 2,048 tokens: without it (1.0) gin's maps changed by up to 14 and 66 lines beyond the edited
# one (sections swapping); 1.1, 1.25 and 1.5 all gave 0. 1.25 keeps the order near the ranking.
STEADY_ORDER = 1.25

# --- Search (search.py): BM25 with the map's rank as a prior ---

K1 = 1.2  # BM25's usual term saturation
# Length normalisation: less than BM25's usual 0.75, since coordination already favours long
# bodies. Dev set S@5 0.598 at 0.4, 0.608 at 0.3, 0.605 at 0.2 (bf32911).
B = 0.3
NAME_WEIGHT = 3  # a definition's name says more than its body's words. By hand.
PRIOR = 0.6  # share of a hit's score that the map's rank may take away. By hand.
SECONDARY_HIT = 0.3  # tests, examples and docs code answer a query less often than the code they test
PROSE = 0.1  # Markdown sections: prose matched prose commit messages before code (ed5b561); S@5 0.604 at 0.2
# The words of a query's first line (a task's title) weigh this much more: dev set R@1
# 0.529 -> 0.552 (01171e0); S@5 0.602 at 0.5.
TITLE = 1.0
# A file whose folders or name the task's title spells out (every sub-word of one of them in
# the title: "fix: median should use sorted len" names math/median.rs) is likelier the one to
# change: its best definition gains this many times the share of the title's weight those
# words carry. Large dev set, with HTML comments left out of the task (words.task_text, alone:
# R@1 0.335 -> 0.343): R@1 0.343 -> 0.392, S@5 0.358 -> 0.427, MRR 0.540 -> 0.612; every
# repository higher on R@1 and MRR. Measured while the comments were still in the map's
# signals: R@1 0.387 at 3, 0.400 at 4, 0.408 at 5, 0.404 at 8. Small set R@1 0.557 -> 0.570,
# S@5 0.608 -> 0.610, no repository lower. Lifting every definition of the file pushed other
# files' symbols out (small S@5 0.594, httpx 0.625 -> 0.585); any shared sub-word instead of
# a whole folder or name lifted url_format.go for "GMT format" (chi R@1 0.653 -> 0.613).
NAMED_FILE = 4
# Only the best hits' files are looked at, for NAMED_FILE (their paths' words are made per
# query: the figures above are the same for 100 and 1,000) and for FILE_EVIDENCE (a kernel
# query matches millions of definitions, which sorting by file took 0.5 s).
FILE_CANDIDATES = 300
# A title's scope ("fix(compiler-ssr): ...", "promql: ...", words.scope) says where the change
# is, so its words count this many times more toward NAMED_FILE: large dev set R@1 0.392 ->
# 0.433, MRR 0.612 -> 0.637, mapF @1,024 0.818 -> 0.831 (vue 0.783 -> 0.833), @4,096 0.874 the
# same; S@5 0.427 -> 0.424 (prometheus 0.394 -> 0.382: "storage/remote:" lifts every file
# there, and their best definitions push the named method out). At 2: R@1 the same, S@5 0.421
# (prometheus 0.370); at 3 and 5, S@5 0.418. Small set R@1 0.570 -> 0.577 (chi 0.653 -> 0.693;
# 0.580 at 2), no column of any repository lower.
SCOPE = 1
# A name the task writes as code (`DropSchema`, execution_options, EffectScope: words.code_names)
# is likelier the definition to change than one its words merely match: that definition's
# score is multiplied by 1 + CODE_NAME / the number of definitions of that name (`execute` in
# every dialect says less than `DropSchema`), and QUALIFIED_NAME more when the task qualifies
# it by its class or type (`AsyncSession.execute`, ByteStream::into_bytes). Large dev set S@5
# 0.424 -> 0.453 (nushell 0.490 -> 0.528, sqlalchemy 0.376 -> 0.411, vue 0.452 -> 0.500), R@1
# 0.433 -> 0.443, MRR 0.637 -> 0.653; its map @1,024 mapF 0.824 -> 0.832, mapS 0.597 -> 0.619,
# @4,096 0.887 -> 0.896, 0.759 -> 0.768. Small set R@1 0.577 -> 0.587, S@5 0.610 -> 0.611, mapF
# @1,024 0.973 -> 0.971 (httpx 0.980 -> 0.967); jinja R@1 0.653 -> 0.633 ("make
# compile_templates deterministic" changes the compiler, not that method), zod R@5 0.947 ->
# 0.907 (v3's ZodLazy, which the task names, pushes v4's schemas.ts from 5th to 6th). Not
# shared among the name's definitions (1 and 2): large R@1 0.428 (vue 0.383 -> 0.333: the
# task names `shallowRef`, which the change uses). Shared, 4 and 2: large S@5 0.457, R@1 0.451,
# but httpx S@5 0.625 -> 0.603; 2 and 4: large R@1 0.443 (sqlalchemy 0.467 -> 0.433).
CODE_NAME = 2.0
QUALIFIED_NAME = 2.0
# A definition whose body uses a name of several words that the task writes as code (a
# parameter it passes on, `adapt_on_names`; a constant it reads, `USE_CLIENT_DEFAULT`) changes
# with it more often than the task's words alone say: its score is multiplied by 1 + CODE_USE
# times the name's rarity (1 for a name one definition uses). Large dev set R@1 0.443 -> 0.460,
# R@5 0.756 -> 0.776, MRR 0.657 -> 0.670, S@5 0.464 -> 0.471 (vue 0.583 -> 0.536), S@10 0.516
# -> 0.545, map @1,024 mapF/mapS 0.849/0.650 -> 0.853/0.675. Small set S@5 0.622 -> 0.626, R@5
# 0.896 -> 0.906; httpx S@5 0.669 -> 0.642 and mapS @1,024 0.878 -> 0.825 (the task that writes
# `WSGITransport` lifts _init_transport, which uses it, over the __init__ it changes), zod mapS
# 0.727 -> 0.791. At 2: large S@5 0.489, but httpx S@5 0.602; 1.5: 0.474; 0.5: 0.479 with small
# S@5 0.616. Shared among the users (4 / their number): large S@5 0.485, R@1 0.435. Only names
# no definition has: large S@5 0.463. Postings grow by a seventh (Django 5.2: 16.6 -> 19.0 MB).
CODE_USE = 1.0
# Lines after which a definition ranks lower, one step per doubling, since retrieving it
# costs more: dev set S@5 0.612 at 90, 0.608 at 100, 0.602 at 110; bench/token_efficiency.py
# fastapi 0.115.12 856 tokens a query at 100, 1,046 at 120 (bf32911). Remeasured at 27fe779:
# the token benchmark no longer moves (836 a query at 100 and at 160), and the large set's
# changed definitions are longer (median 50 lines, a quarter over 116; small set 20): large
# S@5 0.471 at 100, 0.497 at 130, 0.492 at 160 (R@1 0.460, 0.460, 0.481). But small-set
# repositories fell by more than 0.02: at 130 fd S@5 0.604 -> 0.561 and jinja R@10 0.947 ->
# 0.907; at 160 jinja S@5 0.531 -> 0.505 and R@10 0.947 -> 0.907. With FILE_EVIDENCE (below)
# it is 115: see there.
LONG = 115
# Coordination: a definition covering more of the query's words (by rarity) gains; what makes
# a long task text work. Dev set S@5 0.596 at 1.0, 0.608 at 1.25, 0.604 at 1.5 (bf32911).
COORD = 1.25
# A definition whose file holds other strong matches is likelier the one to change than one
# that matches alone (a hub type whose long text shares a few of the task's words; the stray
# function of another package): each hit's score is multiplied by 1 + FILE_EVIDENCE times the
# sum of its file's FILE_EVIDENCE_HITS best scores, as a share of the best file's sum. With
# LONG at 115, fresh caches, maps included: large dev set S@5 0.471 -> 0.514 (nushell 0.528 ->
# 0.556, prometheus 0.422 -> 0.464, sqlalchemy 0.416 -> 0.438, vue 0.536 -> 0.631), R@1 0.460
# -> 0.464, R@10 0.849 -> 0.865, MRR 0.671 -> 0.677, mapF/mapS @1,024 0.853/0.675 ->
# 0.878/0.698, @4,096 0.912/0.788 -> 0.919/0.810; but sqlalchemy R@1 0.467 -> 0.433 and vue
# R@5 0.717 -> 0.700. Small set S@5 0.626 -> 0.635, R@1 0.587 -> 0.600, MRR 0.773 -> 0.784,
# mapS @1,024 0.871 -> 0.877; zod mapS @1,024 0.791 -> 0.743 is one task whose gold $ZodLazy
# neither map shows (the old one held `schemas.$ZodLazy` in api.ts's `_lazy` signature, which
# the scorer takes for it). Token benchmark 836 -> 815 a query. Neighbours, from both sets'
# candidates with their scores replayed under other weights: at 0.5 and 0.75, large S@5 0.504
# and 0.506; at 1.5, jinja R@1 and koa S@10 fall by a task; 2 or 4 best hits a file: 0.511, 0.510
# (at 4 jinja R@10 falls). With LONG at 100, fd S@5 falls (0.604 -> 0.583), at 130 jinja R@10
# (0.947 -> 0.907); LONG at 115 alone: large S@5 0.492 and fd S@5 0.561.
FILE_EVIDENCE = 1.0
FILE_EVIDENCE_HITS = 3
# Constants and module declarations: data and pointers answer a query less often than code.
# Dev set S@5 0.606 at 0.7, 0.608 at 0.5 (bf32911).
DATA = 0.5
