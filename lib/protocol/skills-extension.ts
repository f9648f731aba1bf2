/**
 * The Skills extension's names on the wire (SEP-2640, `io.modelcontextprotocol/skills`): the id
 * both eras advertise in `capabilities.extensions`, and its three methods.
 */
export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';
export const SKILLS_LIST_METHOD = 'skills/list';
export const SKILLS_GET_METHOD = 'skills/get';
/** Lists a directory resource's direct children (offered when the capability says `directoryRead`). */
export const DIRECTORY_READ_METHOD = 'resources/directory/read';
