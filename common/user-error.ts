import { LivecontextError } from '../agent/errors';

/** A mistake the user can fix (a missing argument, an unreachable server): one line, exit status 2. */
export class UserError extends LivecontextError {
  constructor(message: string, code = 'USER_ERROR') {
    super(code, message);
  }
}
