"""Java properties, XML (pom.xml, Spring, .csproj, Android), Gradle, Terraform, proto and GraphQL:
the pieces each real file is cut into, broken files, untrusted XML, size limits."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from codelens.ingest.codebase import chunk_codebase
from codelens.ingest.config_blocks import hcl_pieces, hcl_pieces_by_braces
from codelens.ingest.config_xml import parse_xml, xml_as_text
from codelens.ingest.embed_text import embedding_text
from codelens.ingest.formats import chunk_other_file, file_format, file_label
from codelens.ingest.lines import source_lines
from codelens.search.filters import chunk_language

FIXTURES = Path(__file__).parent / "fixtures" / "config_formats"


def pieces(name: str, text: str | None = None) -> list[tuple[str, int, int]]:
    """(symbol, start line, end line) of a fixture's (or a text's) chunks, all of kind config."""
    text = (FIXTURES / name).read_text(encoding="utf-8") if text is None else text
    fmt = file_format(name)
    assert fmt is not None
    chunks = chunk_other_file(name, text, fmt)
    assert {c.kind for c in chunks} == {"config"}
    return [(c.symbol, c.start_line, c.end_line) for c in chunks]


@pytest.mark.parametrize(("path", "expected"), [
    ("src/main/resources/application.properties", "properties"), ("application-mysql.properties", "properties"),
    ("pom.xml", "xml"), ("src/main/resources/applicationContext.xml", "xml"), ("Billing.csproj", "xml"),
    ("Directory.Build.props", "xml"), ("app/src/main/AndroidManifest.xml", "xml"), ("build.gradle", "gradle"),
    ("build.gradle.kts", "gradle"), ("settings.gradle.kts", "gradle"), ("src/App.kt", "kotlin"),
    ("infra/main.tf", "hcl"), ("prod.tfvars", "hcl"), ("terragrunt.hcl", "hcl"), ("api/billing.proto", "proto"),
    ("schema.graphql", "graphql"), ("queries/user.gql", "graphql"),
])
def test_file_format_of_the_configuration_files(path: str, expected: str) -> None:
    assert file_format(path) == expected


def test_properties_grouped_by_their_first_dotted_segments() -> None:
    assert pieces("application-prod.properties") == [
        ("spring.datasource", 1, 6),  # the file's header comment and the group's own comment with it
        ("server", 7, 8),  # server.port and server.ssl.enabled: one group
        ("spring.cache", 9, 11), ("welcome", 12, 13),  # a continued line stays with its key
        ("logging.level", 14, 15),
    ]


def test_properties_runs_of_plain_keys_and_a_file_of_comments() -> None:
    text = "welcome=Welcome\nrequired=is required\ntypeMismatch.date=invalid date\nowner=Owner\n"
    assert pieces("messages.properties", text) == [("<keys>", 1, 2), ("typeMismatch", 3, 3), ("owner", 4, 4)]
    assert pieces("empty.properties", "# nothing set yet\n! still nothing\n") == [("<document>", 1, 2)]


def test_pom_dependencies_plugins_and_profiles() -> None:
    assert pieces("pom.xml") == [
        ("project", 3, 6),  # modelVersion, groupId, artifactId, version side by side
        ("properties", 8, 10),
        ("dependencies.org.springframework.boot:spring-boot-starter-web", 13, 16),
        ("dependencies.org.postgresql:postgresql", 17, 22),  # its comment above it
        ("build.plugins.org.springframework.boot:spring-boot-maven-plugin", 27, 30),
        ("build.plugins.maven-surefire-plugin", 31, 36),  # no groupId: the artifactId
        ("profiles.native", 41, 46),
    ]


def test_spring_context_beans_with_an_external_dtd_never_fetched() -> None:
    # The DOCTYPE names an http DTD: parsed without it (nothing fetched), each bean a piece
    assert pieces("applicationContext.xml") == [
        ("context:component-scan", 4, 6), ("bean.dataSource", 8, 12), ("bean.transactionManager", 14, 17)]


def test_csproj_groups_and_android_manifest_components() -> None:
    assert pieces("Billing.csproj") == [
        ("PropertyGroup", 2, 5), ("ItemGroup.PackageReference", 6, 9), ("ItemGroup.ProjectReference", 10, 12)]
    assert pieces("AndroidManifest.xml") == [
        ("uses-permission.android.permission.INTERNET", 3, 3),
        ("application.activity.MainActivity", 5, 11), ("application.service.sync.SyncService", 12, 12)]


def test_a_long_list_of_one_line_settings_is_read_in_parts_not_a_chunk_a_line() -> None:
    """joda-money's Eclipse formatter profile: 390 `<setting id=... value=.../>` were 394 chunks of a line each, a
    fifth of its index, in the answers to formatting questions; a long list of elements of lines is split as ever."""
    settings = "".join(f'    <setting id="org.eclipse.jdt.core.formatter.option_{n}" value="insert"/>\n'
                       for n in range(300))
    text = (f'<profiles version="22">\n  <profile kind="CodeFormatterProfile" name="Joda">\n{settings}'
            "  </profile>\n</profiles>\n")
    found = pieces("JodaFormatter.xml", text)
    assert 2 <= len(found) <= 30 and all(symbol.startswith("Joda") for symbol, _, _ in found)
    beans = "".join(f'  <group name="g{n}">\n    <bean id="b{n}" class="x.{"Y" * 60}"/>\n  </group>\n'
                    for n in range(100))
    assert len(pieces("context.xml", f"<beans>\n <list>\n{beans} </list>\n</beans>\n")) == 100


def test_broken_xml_is_split_by_its_lines() -> None:
    text = "<project>\n  <dependencies>\n    <dependency>\n  </dependencies>\n  <build>\n    <plugins>\n"
    assert parse_xml(text) is None
    assert pieces("pom.xml", text) == [("dependencies", 1, 4), ("build", 5, 6)]


BOMB = """<?xml version="1.0"?>
<!DOCTYPE lolz [
  <!ENTITY lol "lol">
  <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
  <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
  <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
  <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
  <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
  <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
  <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
  <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<beans>
  <bean id="&lol9;" class="A"/>
  <bean id="b" class="B"/>
</beans>
"""


def test_an_entity_bomb_is_not_expanded() -> None:
    assert parse_xml(BOMB) is None  # entity declarations are refused, not expanded
    chunks = chunk_other_file("context.xml", BOMB, "xml")
    assert [c.symbol for c in chunks] == ["bean", "bean#2"]  # by the lines instead
    assert all("lollol" not in c.code and "lollol" not in c.symbol for c in chunks)


def test_an_external_entity_is_never_read(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-VALUE")
    dtd = tmp_path / "evil.dtd"
    dtd.write_text('<!ENTITY leak "DTD-WAS-READ">')
    body = '<beans>\n  <bean id="&leak;"/>\n  <bean id="b"/>\n</beans>\n'
    for text in (f'<!DOCTYPE beans [<!ENTITY leak SYSTEM "{secret.as_uri()}">]>\n{body}',
                 f'<!DOCTYPE beans SYSTEM "{dtd.as_uri()}">\n{body}'):
        chunks = chunk_other_file("context.xml", text, "xml")
        assert chunks and all("TOP-SECRET" not in c.symbol + c.code and "DTD-WAS-READ" not in c.symbol
                              for c in chunks)


def test_gradle_groovy_and_kotlin_dsl_top_level_blocks() -> None:
    assert pieces("build.gradle") == [
        ("plugins", 1, 4), ("group, version", 6, 7),
        ("dependencies", 9, 13),  # its comment above it; the brace in a string and a comment is no block
        ("tasks.named('test')", 15, 17)]
    assert pieces("build.gradle.kts") == [
        ("plugins", 1, 4), ("repositories", 6, 9), ("dependencies", 11, 14), ("application", 16, 18),
        ("tasks.withType<Test>", 20, 22)]


def test_gradle_kts_is_read_as_a_build_file_and_its_hits_say_kotlin() -> None:
    chunk = chunk_other_file("build.gradle.kts", (FIXTURES / "build.gradle.kts").read_text(), "gradle")[0]
    assert chunk.kind == "config" and chunk_language(chunk) == "kotlin"
    assert chunk_language(chunk_other_file("pom.xml", (FIXTURES / "pom.xml").read_text(), "xml")[0]) == "config"


def test_an_unclosed_gradle_block_runs_to_the_end() -> None:
    text = "plugins {\n    id 'java'\n}\n\ndependencies {\n    implementation 'a:b'\n\nversion = '1'\n"
    assert pieces("build.gradle", text) == [("plugins", 1, 3), ("dependencies", 5, 8)]


def test_terraform_blocks_by_the_grammar_and_by_braces() -> None:
    expected = [("terraform", 1, 5), ("resource.aws_db_instance.main", 7, 11), ("variable.region", 13, 15),
                ("module.vpc", 17, 19), ("locals", 21, 23)]
    assert pieces("main.tf") == expected
    assert pieces("prod.tfvars") == [("region, instance_class", 1, 2)]
    text = (FIXTURES / "main.tf").read_text()
    lines = source_lines(text.rstrip("\n"))
    assert hcl_pieces(text, lines) == hcl_pieces_by_braces(text, lines)  # the reader without the grammar agrees


def test_proto_messages_services_and_enums() -> None:
    assert pieces("billing.proto") == [
        ("<header>", 1, 6), ("Invoice", 8, 16),  # a nested message stays inside; `}` in a string is text
        ("Status", 18, 21), ("BillingService", 23, 25)]


def test_graphql_definitions_with_their_descriptions() -> None:
    assert pieces("schema.graphql") == [
        ("DateTime", 1, 1), ("User", 3, 9), ("Query", 11, 15), ("NewUser", 17, 19), ("Role", 21, 24),
        ("Query#2", 26, 28),  # extend type Query
        ("GetUser", 30, 32)]


def test_a_broken_proto_still_gives_its_messages() -> None:
    text = 'syntax = "proto3";\n\nmessage A {\n  string a = 1;\n}\n\nmessage B {\n  string b = 1;\n'
    assert pieces("broken.proto", text) == [("<header>", 1, 1), ("A", 3, 5), ("B", 7, 8)]


def test_configuration_files_in_a_codebase_and_the_size_limit(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES, tmp_path / "repo")
    repo = tmp_path / "repo"
    (repo / "huge.xml").write_text("<data>\n" + "  <row id='1'>x</row>\n" * 20_000 + "</data>\n")  # 440 KB
    (repo / "db.properties").write_text("spring.datasource.password=s3cr3t-Pa55word-Value\n")
    for cache in (".terraform/modules/vpc", ".gradle/8.5"):  # downloaded modules, Gradle's caches
        (repo / cache).mkdir(parents=True)
        (repo / cache / "main.tf").write_text('resource "aws_vpc" "this" {\n  cidr_block = "10.0.0.0/16"\n}\n')
    (repo / ".idea").mkdir()  # a JetBrains IDE's state: XML the project did not write
    (repo / ".idea" / "workspace.xml").write_text('<project version="4">\n  <component name="Tasks"/>\n</project>\n')
    chunked = chunk_codebase(repo, 1_000_000)
    ids = {c.chunk_id for c in chunked.chunks}
    assert {"pom.xml::dependencies.org.postgresql:postgresql", "main.tf::resource.aws_db_instance.main",
            "application-prod.properties::spring.datasource", "billing.proto::Invoice"} <= ids
    skipped = (".terraform/", ".gradle/", ".idea/")
    assert not any(c.path == "huge.xml" or c.path.startswith(skipped) for c in chunked.chunks)
    assert any("huge.xml: skipped" in warning for warning in chunked.warnings)
    password = next(c for c in chunked.chunks if c.path == "db.properties")
    assert "s3cr3t-Pa55word-Value" not in password.code  # configuration values are masked like any other


def test_secrets_in_xml_are_masked_and_the_rest_stays(tmp_path: Path) -> None:
    (tmp_path / "settings.xml").write_text(
        "<settings>\n  <server>\n    <id>nexus</id>\n    <password>Hunter2-Maven-Pass</password>\n  </server>\n"
        '  <bean id="ds">\n    <property name="password" value="Hunter3-Spring-Pass"/>\n'
        '    <property name="username" value="petclinic"/>\n    <property name="url" value="${db.url}"/>\n'
        "  </bean>\n</settings>\n")
    chunked = chunk_codebase(tmp_path, 1_000_000)
    code = "\n".join(c.code for c in chunked.chunks)
    assert "Hunter2-Maven-Pass" not in code and "Hunter3-Spring-Pass" not in code
    assert '<password><secret:password></password>' in code and 'value="petclinic"' in code
    assert 'value="${db.url}"' in code  # a template is no secret
    assert [c.symbol for c in chunked.chunks] == ["server.nexus", "bean.ds"]


def test_xml_pieces_are_embedded_as_words_under_the_files_own_name() -> None:
    chunk = next(c for c in chunk_other_file("pom.xml", (FIXTURES / "pom.xml").read_text(), "xml")
                 if c.symbol == "dependencies.org.postgresql:postgresql")
    text = embedding_text(chunk)
    assert text.startswith("Maven POM build file dependencies.org.postgresql:postgresql in pom.xml")
    assert "groupId org.postgresql\nartifactId postgresql\nscope runtime" in text and "</" not in text
    assert xml_as_text('<bean id="ds" class="a.B">\n  <property name="url" value="jdbc:h2:mem"/>\n</bean>') == (
        "bean id ds class a.B\nproperty name url value jdbc:h2:mem")
    assert file_label("src/main/resources/application-mysql.properties") == "Spring application properties"
    assert file_label("i18n/messages.properties") == "Java properties"
    assert file_label("build.gradle.kts") == "Gradle build script (Kotlin DSL)" and file_label("src/App.kt") is None
