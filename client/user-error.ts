/** A mistake the user can fix (a missing argument, an unreachable server): one line, exit status 2. */
export class UserError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}
