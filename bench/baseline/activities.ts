/** The baseline's activities: stand-ins for a model call and a tool run, with tiny fixed payloads. */
export async function fakeModel(): Promise<string> {
  return 'ok';
}

export async function fakeTool(): Promise<string> {
  return 'done';
}
