"""Compact results, read from the Management and Storage APIs' JSON.

Models read upstream objects through `validation_alias` where names differ, keep what an LLM acts on, and
never carry a secret: no service key, database password, JWT secret or Edge Function secret value has a field.
"""

from __future__ import annotations

from typing import Any

from pydantic import AliasChoices, BaseModel, Field

from mcpist.upstream import Clipped


class Organization(BaseModel):
    slug: str
    name: str


class Organizations(BaseModel):
    organizations: list[Organization]


class ProjectSummary(BaseModel):
    ref: str
    name: str
    organization: str | None = Field(None, validation_alias=AliasChoices("organization", "organization_slug"))
    region: str | None = None
    status: str | None = None
    created_at: str | None = Field(None, validation_alias=AliasChoices("created_at", "inserted_at"))
    is_branch: bool | None = None


class ProjectDetail(ProjectSummary):
    database_host: str | None = None
    postgres_version: str | None = None
    api_url: str = Field(description="the project's API root, for client libraries")
    pinned: bool = Field(False, description="the account is pinned to this project")


class ProjectAction(BaseModel):
    project: str
    action: str
    status: str = Field(description="requested: Supabase works on it; get_project shows the status")


class CreatedProject(BaseModel):
    ref: str
    name: str
    organization: str
    region: str
    status: str
    api_url: str
    note: str


class SqlResult(BaseModel):
    project: str
    rows: list[dict[str, Any]] = Field(description="the leading rows, as column -> value")
    row_count: int = Field(description="rows the database returned (all of them when complete)")
    rows_omitted: int = Field(description="of row_count, rows left out to stay within the bounds")
    values_cut: bool = Field(False, description="some long values were cut")
    complete: bool = Field(True, description="false: the answer was too large to read whole; add LIMIT")


class Column(BaseModel):
    name: str
    type: str
    nullable: bool = True
    default: str | None = None


class Table(BaseModel):
    schema_name: str = Field(validation_alias="schema")
    name: str
    rls_enabled: bool = False
    rows_estimate: int | None = None
    comment: str | None = None
    primary_key: list[str] = []
    columns: list[Column] | None = None
    foreign_keys: list[str] | None = Field(None, description="constraint definitions")


class Extension(BaseModel):
    name: str
    schema_name: str | None = Field(None, validation_alias="schema")
    default_version: str | None = None
    installed_version: str | None = Field(None, description="none: available, not installed")
    comment: str | None = None


class Migration(BaseModel):
    version: str
    name: str | None = None


class MigrationApplied(BaseModel):
    project: str
    name: str
    applied: bool = True


class TypeScriptTypes(BaseModel):
    project: str
    schemas: list[str]
    types: Clipped


class LogEntries(BaseModel):
    project: str
    service: str
    start: str
    end: str
    entries: list[dict[str, Any]] = Field(description="newest first")
    entries_omitted: int = Field(0, description="entries left out to stay within the bounds")


class Lint(BaseModel):
    name: str
    title: str
    level: str = Field(description="ERROR, WARN or INFO")
    categories: list[str] = []
    description: str | None = None
    detail: str | None = None
    remediation: str | None = Field(None, description="a URL explaining the fix")
    metadata: dict[str, Any] | None = None


class EdgeFunction(BaseModel):
    slug: str
    name: str
    id: str | None = None
    status: str | None = None
    version: int | None = None
    verify_jwt: bool | None = None
    entrypoint_path: str | None = None
    import_map_path: str | None = None
    created_at: str | None = None
    updated_at: str | None = None


class SourceFile(BaseModel):
    name: str
    content: str
    truncated: bool = False


class EdgeFunctionDetail(EdgeFunction):
    files: list[SourceFile] | None = Field(None, description="the deployed source, with include_source")
    source_note: str | None = None


class Deleted(BaseModel):
    project: str
    deleted: str


class SecretName(BaseModel):
    name: str
    updated_at: str | None = None


class SecretNames(BaseModel):
    project: str
    secrets: list[SecretName] = Field(description="names only; values are never shown")


class SecretsSet(BaseModel):
    project: str
    names: list[str]


class Branch(BaseModel):
    id: str
    name: str
    project_ref: str = Field(description="the branch's own project ref")
    parent_project_ref: str | None = None
    is_default: bool = False
    git_branch: str | None = None
    persistent: bool | None = None
    status: str | None = None
    preview_project_status: str | None = None
    with_data: bool | None = None
    created_at: str | None = None
    updated_at: str | None = None


class Branches(BaseModel):
    project: str
    branches: list[Branch]


class BranchResult(BaseModel):
    project: str
    action: str
    branch: Branch | None = None
    deleted: str | None = Field(None, description="the deleted branch's name")


class Bucket(BaseModel):
    id: str
    name: str
    public: bool = False
    created_at: str | None = None
    updated_at: str | None = None


class Buckets(BaseModel):
    project: str
    buckets: list[Bucket]


class BucketResult(BaseModel):
    project: str
    bucket: str
    action: str
    message: str | None = None


class StorageObject(BaseModel):
    path: str = Field(description="the full key within the bucket")
    folder: bool = Field(False, description="a prefix holding more objects: list it with prefix=path + '/'")
    size: int | None = None
    content_type: str | None = None
    updated_at: str | None = None


class ObjectWritten(BaseModel):
    project: str
    bucket: str
    path: str
    size: int
    content_type: str


class ObjectContent(BaseModel):
    project: str
    bucket: str
    path: str
    content_type: str | None = None
    size: int | None = Field(None, description="the object's size in bytes, when Storage says")
    text: str | None = Field(None, description="the content as UTF-8 text")
    base64: str | None = Field(None, description="the content, base64-encoded, when it is not text")
    truncated: bool = Field(False, description="only the first max_bytes are here")
    signed_url: str | None = Field(None, description="a URL anyone holding it can download from until it expires")
    expires_in: int | None = None


class ObjectsDeleted(BaseModel):
    project: str
    bucket: str
    deleted: list[str]
    not_found: list[str] = Field([], description="paths that were asked for but not deleted")
