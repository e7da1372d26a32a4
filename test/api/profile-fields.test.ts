/** Custom profile fields: /realm/profile_fields (list, create, reorder, update, delete), /users/me/profile_data, events. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectError, expectSuccess, type Credentials } from "../helpers/client.ts";
import { pollEvents, registerQueue, withoutIds } from "../helpers/events.ts";
import { readUser } from "./users-support.ts";
import { describeEachStore } from "../helpers/suite.ts";
import { NO_AUTH, NOT_ADMIN } from "../helpers/errors.ts";

const CHOICES = { python: { text: "Python", order: "1" }, java: { text: "Java", order: "2" } };

describeEachStore("custom profile fields", (server) => {
  async function fields(user: Credentials = server.fixtures.guest): Promise<Array<Record<string, unknown>>> {
    return expectSuccess(await server.api.get(user, "/realm/profile_fields")).custom_fields;
  }
  const create = (params: Record<string, unknown>, user: Credentials = server.fixtures.admin) => server.api.post(user, "/realm/profile_fields", params);
  async function clear(): Promise<void> {
    for (const f of await fields()) expectSuccess(await server.api.delete(server.fixtures.admin, `/realm/profile_fields/${f.id}`));
  }

  test("administrators create fields of all eight types; everyone lists them in order", async () => {
    const specs: Array<Record<string, unknown>> = [
      { name: "Phone", field_type: 1, hint: "Work phone", required: true },
      { name: "Biography", field_type: 2, editable_by_user: false },
      { name: "Language", field_type: 3, field_data: CHOICES, display_in_profile_summary: true },
      { name: "Birthday", field_type: 4 },
      { name: "Homepage", field_type: 5 },
      { name: "Mentor", field_type: 6 },
      { name: "Mastodon", field_type: 7, field_data: { subtype: "custom", url_pattern: "https://mastodon.social/@%(username)s" } },
      { name: "Pronouns", field_type: 8, display_in_profile_summary: true },
    ];
    const ids: number[] = [];
    for (const spec of specs) ids.push(expectSuccess(await create(spec)).id);
    const github = expectSuccess(await create({ field_type: 7, field_data: { subtype: "github" } }, server.fixtures.owner)).id;
    const listed = await fields();
    assert.deepEqual(listed.map((f) => f.id), [...ids, github]);
    assert.deepEqual(listed[0], { id: ids[0], type: 1, order: listed[0].order, name: "Phone", hint: "Work phone", field_data: "", required: true, editable_by_user: true });
    assert.equal(listed[1].editable_by_user, false);
    assert.deepEqual(JSON.parse(String(listed[2].field_data)), CHOICES);
    assert.equal(listed[2].display_in_profile_summary, true);
    assert.equal(listed[3].field_data, "");
    assert.deepEqual({ name: listed[8].name, hint: listed[8].hint, field_data: listed[8].field_data }, { name: "GitHub username", hint: "", field_data: '{"subtype":"github"}' });
    const state = (await registerQueue(server.api, server.fixtures.member, { fetch_event_types: ["custom_profile_fields"] })).state;
    assert.deepEqual(state.custom_profile_fields, listed);
    await clear();
  });

  test("only administrators write; no credentials refused; nothing written", async () => {
    const { moderator, member, guest, bot, admin } = server.fixtures;
    for (const who of [moderator, member, guest, bot]) expectError(await create({ name: "X", field_type: 1 }, who), "UNAUTHORIZED_PRINCIPAL", NOT_ADMIN);
    expectError(await create({ name: "X", field_type: 1 }, null as unknown as Credentials), "UNAUTHORIZED", NO_AUTH, 401);
    expectError(await server.api.get(null, "/realm/profile_fields"), "UNAUTHORIZED", NO_AUTH, 401);
    assert.deepEqual(await fields(), []);
    const { id } = expectSuccess(await create({ name: "Phone", field_type: 1 }));
    expectError(await server.api.patch(member, `/realm/profile_fields/${id}`, { name: "Cell" }), "UNAUTHORIZED_PRINCIPAL", NOT_ADMIN);
    expectError(await server.api.delete(moderator, `/realm/profile_fields/${id}`), "UNAUTHORIZED_PRINCIPAL", NOT_ADMIN);
    expectError(await server.api.patch(guest, "/realm/profile_fields", { order: [id] }), "UNAUTHORIZED_PRINCIPAL", NOT_ADMIN);
    expectError(await server.api.patch(admin, `/realm/profile_fields/${id + 100}`, { name: "Cell" }), "BAD_REQUEST", `Field id ${id + 100} not found.`);
    expectError(await server.api.delete(admin, `/realm/profile_fields/${id + 100}`), "BAD_REQUEST", `Field id ${id + 100} not found.`);
    assert.deepEqual((await fields()).map((f) => [f.id, f.name]), [[id, "Phone"]]);
    await clear();
  });

  test("creation validation (upstream's messages), each writing nothing", async () => {
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ name: "  ", field_type: 1 }, "Label cannot be blank."],
      [{ name: "N".repeat(41), field_type: 1 }, "name is too long (limit: 40 characters)"],
      [{ name: "N", hint: "h".repeat(81), field_type: 1 }, "hint is too long (limit: 80 characters)"],
      [{ name: "N", field_type: 9 }, "Invalid field type."],
      [{ name: "N", field_type: 3, field_data: {} }, "Field must have at least one choice."],
      [{ name: "N", field_type: 3 }, "Field must have at least one choice."],
      [{ name: "N", field_type: 3, field_data: { " ": { text: "A", order: "1" } } }, "'value' cannot be blank."],
      [{ name: "N", field_type: 3, field_data: { a: { text: "A" } } }, "order key is missing from field_data"],
      [{ name: "N", field_type: 3, field_data: { a: { text: "", order: "1" } } }, 'field_data["text"] cannot be blank.'],
      [{ name: "N", field_type: 3, field_data: { a: { text: "A", order: "1", x: "y" } } }, "Unexpected arguments: x"],
      [{ name: "N", field_type: 3, field_data: { a: { text: "A", order: "1" }, b: { text: "A", order: "2" } } }, "Field must not have duplicate choices."],
      [{ name: "N", field_type: 3, field_data: [1] }, "field_data is not a dict"],
      [{ name: "N", field_type: 7, field_data: {} }, "subtype key is missing from field_data"],
      [{ name: "N", field_type: 7, field_data: { subtype: "myspace" } }, "Invalid external account type"],
      [{ name: "N", field_type: 7, field_data: { subtype: "custom", url_pattern: "https://e.com/" } }, "URL pattern must contain '%(username)s'."],
      [{ name: "N", field_type: 7, field_data: { subtype: "custom", url_pattern: "e%(username)s" } }, 'field_data["url_pattern"] is not a URL'],
      [{ name: "N", field_type: 2, display_in_profile_summary: true }, "Field type not supported for display in profile summary."],
      [{ name: "N", field_type: 6, display_in_profile_summary: true }, "Field type not supported for display in profile summary."],
      [{ name: "N" }, "Missing 'field_type' argument"],
    ];
    for (const [params, msg] of bad) {
      const code = msg.startsWith("Missing") ? "REQUEST_VARIABLE_MISSING" : "BAD_REQUEST";
      expectError(await create(params), code, msg);
    }
    assert.deepEqual(await fields(), []);
    expectSuccess(await create({ name: "Phone", field_type: 1, display_in_profile_summary: true }));
    expectSuccess(await create({ name: "Pronouns", field_type: 8, display_in_profile_summary: true }));
    expectError(await create({ name: "Phone", field_type: 1 }), "BAD_REQUEST", "A field with that label already exists.");
    expectError(await create({ name: "Other", field_type: 1, display_in_profile_summary: true }), "BAD_REQUEST", "Only 2 custom profile fields can be displayed in the profile summary.");
    assert.equal((await fields()).length, 2);
    await clear();
  });

  test("update: only passed properties change; removed choices drop users' values; default accounts stay fixed", async () => {
    const { admin, member } = server.fixtures;
    const phone = expectSuccess(await create({ name: "Phone", field_type: 1 })).id;
    const lang = expectSuccess(await create({ name: "Language", field_type: 3, field_data: CHOICES })).id;
    const gh = expectSuccess(await create({ field_type: 7, field_data: { subtype: "github" } })).id;
    const s1 = expectSuccess(await create({ name: "S1", field_type: 1, display_in_profile_summary: true })).id;
    expectSuccess(await create({ name: "S2", field_type: 1, display_in_profile_summary: true }));
    const patch = (id: number, params: Record<string, unknown>) => server.api.patch(admin, `/realm/profile_fields/${id}`, params);
    expectSuccess(await patch(phone, { name: " Cell phone ", hint: "Mobile", required: true, editable_by_user: false }));
    const cell = (await fields()).find((f) => f.id === phone);
    assert.deepEqual({ name: cell?.name, hint: cell?.hint, required: cell?.required, editable_by_user: cell?.editable_by_user }, { name: "Cell phone", hint: "Mobile", required: true, editable_by_user: false });
    expectError(await patch(phone, { display_in_profile_summary: true }), "BAD_REQUEST", "Only 2 custom profile fields can be displayed in the profile summary.");
    expectSuccess(await patch(s1, { display_in_profile_summary: true }));
    expectError(await patch(phone, { name: "S1" }), "BAD_REQUEST", "A field with that label already exists.");
    expectError(await patch(phone, { name: "" }), "BAD_REQUEST", "Label cannot be blank.");
    expectError(await patch(gh, { name: "Code" }), "BAD_REQUEST", "Default custom field cannot be updated.");
    expectSuccess(await patch(gh, { required: true }));
    expectError(await patch(lang, { field_data: {} }), "BAD_REQUEST", "Field must have at least one choice.");
    expectSuccess(await server.api.patch(member, "/users/me/profile_data", { data: [{ id: lang, value: "java" }] }));
    expectSuccess(await patch(lang, { field_data: { python: { text: "Python", order: "1" } } }));
    assert.equal(((await readUser(server, member.id)).profile_data as Record<string, unknown>)[String(lang)], undefined);
    assert.equal((await fields()).find((f) => f.id === phone)?.name, "Cell phone");
    await clear();
  });

  test("reorder and delete (values go with the field)", async () => {
    const { admin, member } = server.fixtures;
    const ids: number[] = [];
    for (const name of ["A", "B", "C"]) ids.push(expectSuccess(await create({ name, field_type: 1 })).id);
    expectSuccess(await server.api.patch(admin, "/realm/profile_fields", { order: [ids[2], ids[0], ids[1], 9999] }));
    assert.deepEqual((await fields()).map((f) => f.id), [ids[2], ids[0], ids[1]]);
    expectError(await server.api.patch(admin, "/realm/profile_fields", { order: [ids[0], ids[1]] }), "BAD_REQUEST", "Invalid order mapping.");
    assert.deepEqual((await fields()).map((f) => f.id), [ids[2], ids[0], ids[1]]);
    expectSuccess(await server.api.patch(member, "/users/me/profile_data", { data: [{ id: ids[0], value: "hello" }] }));
    expectSuccess(await server.api.delete(admin, `/realm/profile_fields/${ids[0]}`));
    assert.deepEqual((await fields()).map((f) => f.id), [ids[2], ids[1]]);
    assert.deepEqual((await readUser(server, member.id)).profile_data, {});
    await clear();
  });

  test("own values: set and clear; fields not editable by users need an administrator", async () => {
    const { member, admin, bot } = server.fixtures;
    const open = expectSuccess(await create({ name: "Phone", field_type: 1 })).id;
    const locked = expectSuccess(await create({ name: "Badge", field_type: 1, editable_by_user: false })).id;
    const date = expectSuccess(await create({ name: "Birthday", field_type: 4 })).id;
    const mentor = expectSuccess(await create({ name: "Mentor", field_type: 6 })).id;
    const set = (user: Credentials, data: unknown) => server.api.patch(user, "/users/me/profile_data", { data });
    expectSuccess(await set(member, [{ id: open, value: "555" }, { id: mentor, value: [admin.id] }]));
    const profile = () => readUser(server, member.id).then((u) => u.profile_data);
    assert.deepEqual(await profile(), { [open]: { value: "555", rendered_value: "<p>555</p>" }, [mentor]: { value: `[${admin.id}]` } });
    const locked_msg = "You are not allowed to change this field. Contact an administrator to update it.";
    expectError(await set(member, [{ id: open, value: "666" }, { id: locked, value: "x" }]), "BAD_REQUEST", locked_msg);
    expectError(await set(member, [{ id: date, value: "2024-13-01" }]), "BAD_REQUEST", "Birthday is not a date");
    expectError(await set(member, [{ id: 9999, value: "x" }]), "BAD_REQUEST", "Field id 9999 not found.");
    expectError(await set(member, [{ id: open }]), "BAD_REQUEST", 'Invalid data[0]["value"]');
    expectError(await set(bot, [{ id: open, value: "1" }]), "BAD_REQUEST", "This endpoint does not accept bot requests.");
    expectError(await set(null as unknown as Credentials, [{ id: open, value: "1" }]), "UNAUTHORIZED", NO_AUTH, 401);
    expectError(await server.api.delete(member, "/users/me/profile_data", { data: [locked] }), "BAD_REQUEST", locked_msg);
    expectError(await server.api.delete(member, "/users/me/profile_data", { data: [9999] }), "BAD_REQUEST", "Field id 9999 not found.");
    assert.deepEqual(await profile(), { [open]: { value: "555", rendered_value: "<p>555</p>" }, [mentor]: { value: `[${admin.id}]` } });
    expectSuccess(await set(admin, [{ id: locked, value: "gold" }]));
    expectSuccess(await server.api.patch(admin, `/users/${member.id}`, { profile_data: [{ id: locked, value: "silver" }] }));
    expectSuccess(await server.api.delete(member, "/users/me/profile_data", { data: [open, mentor, date] }));
    assert.deepEqual(await profile(), { [locked]: { value: "silver", rendered_value: "<p>silver</p>" } });
    await clear();
  });

  test("events: custom_profile_fields to everyone on each change; realm_user updates for values", async () => {
    const { admin, member, guest } = server.fixtures;
    const queue = await registerQueue(server.api, guest, { event_types: ["custom_profile_fields", "realm_user"] });
    const { id } = expectSuccess(await create({ name: "Phone", field_type: 1 }));
    expectError(await create({ name: "Phone", field_type: 1 }), "BAD_REQUEST", "A field with that label already exists.");
    expectSuccess(await server.api.patch(admin, `/realm/profile_fields/${id}`, { hint: "Work" }));
    expectSuccess(await server.api.patch(member, "/users/me/profile_data", { data: [{ id, value: "555" }] }));
    expectSuccess(await server.api.delete(member, "/users/me/profile_data", { data: [id] }));
    expectSuccess(await server.api.delete(admin, `/realm/profile_fields/${id}`));
    const events = withoutIds(await pollEvents(server.api, queue));
    const field = { id, type: 1, name: "Phone", field_data: "", required: false, editable_by_user: true };
    const order = (events[0].fields as Array<Record<string, unknown>>)[0].order;
    assert.deepEqual(events, [
      { type: "custom_profile_fields", fields: [{ ...field, order, hint: "" }] },
      { type: "custom_profile_fields", fields: [{ ...field, order, hint: "Work" }] },
      { type: "realm_user", op: "update", person: { user_id: member.id, custom_profile_field: { id, value: "555", rendered_value: "<p>555</p>" } } },
      { type: "realm_user", op: "update", person: { user_id: member.id, custom_profile_field: { id, value: null } } },
      { type: "custom_profile_fields", fields: [] },
    ]);
  });
});
