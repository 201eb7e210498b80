package apidoc

// Responses are the documented responses of one resource's operations; the {id} and by-slug
// routes share them. The wording is the original's, irregularities included.
type Responses struct {
	Archive, Get, Post, Delete []Response
}

// Shared wording of the archives and the writes.
const (
	badQuery     = "One or more of the specified query variables has a bad format"
	pageNotFound = "The requested page was not found."
	badWrite     = "A required parameter is missing or an input parameter is in the wrong format"
)

// DocResponses are the documented responses of GET /doc.
var DocResponses = []Response{
	{Status: "200", Description: "Returns the documentation for The Events Calendar REST API in " +
		"Swagger consumable format."},
}

var eventResponses = Responses{
	Archive: []Response{
		{Status: "200", Description: "Returns all the upcoming events matching the search criteria",
			Schema: "Event", List: "events"},
		{Status: "400", Description: badQuery},
		{Status: "404", Description: pageNotFound},
	},
	Get: []Response{
		{Status: "200", Description: "Returns the data of the event with the specified post ID",
			Schema: "Event"},
		{Status: "400", Description: "The event post ID is missing."},
		{Status: "403", Description: "The event with the specified ID is not accessible."},
		{Status: "404", Description: "An event with the specified ID does not exist."},
	},
	Post: []Response{
		{Status: "200", Description: "Returns the data of the updated event", Schema: "Event"},
		{Status: "201", Description: "Returns the data of the created event", Schema: "Event"},
		{Status: "400", Description: badWrite},
		{Status: "403", Description: "The user is not authorized to create events"},
	},
	Delete: []Response{
		{Status: "200", Description: "Deletes an event and returns its data", Schema: "Event"},
		{Status: "400", Description: "The event post ID is missing or does not exist."},
		{Status: "403", Description: "The current user cannot delete the event with the specified ID."},
		{Status: "410", Description: "The event with the specified ID has been deleted already."},
		{Status: "500", Description: "The event with the specified ID could not be deleted."},
	},
}

var venueResponses = Responses{
	Archive: []Response{
		{Status: "200", Description: "Returns all the venues matching the search criteria",
			Schema: "Venue", List: "venues"},
		{Status: "400", Description: badQuery},
		{Status: "404", Description: pageNotFound},
	},
	Get: []Response{
		{Status: "200", Description: "Returns the data of the venue with the specified post ID",
			Schema: "Venue"},
		{Status: "400", Description: "The venue post ID is missing."},
		{Status: "403", Description: "The venue with the specified ID is not accessible."},
		{Status: "404", Description: "A venue with the specified post ID does not exist."},
	},
	Post: []Response{
		{Status: "200", Description: "Returns the data of the updated venue", Schema: "Venue"},
		{Status: "201", Description: "Returns the data of the created venue", Schema: "Venue"},
		{Status: "400", Description: badWrite},
		{Status: "403", Description: "The user is not authorized to create venues"},
	},
	Delete: []Response{
		{Status: "200", Description: "Deletes a venue and returns its data", Schema: "Venue"},
		{Status: "400", Description: "The venue post ID is missing or does not exist."},
		{Status: "403", Description: "The current user cannot delete the venue with the specified ID."},
		{Status: "410", Description: "The venue with the specified ID has been deleted already."},
		{Status: "500", Description: "The venue with the specified ID could not be deleted."},
	},
}

// organizerResponses: the original documents no 200 for an organizer update.
var organizerResponses = Responses{
	Archive: []Response{
		{Status: "200", Description: "Returns all the organizers matching the search criteria",
			Schema: "Organizer", List: "organizers"},
		{Status: "400", Description: badQuery},
		{Status: "404", Description: pageNotFound},
	},
	Get: []Response{
		{Status: "200", Description: "Returns the data of the organizer with the specified post ID",
			Schema: "Organizer"},
		{Status: "400", Description: "The organizer post ID is missing."},
		{Status: "403", Description: "The organizer with the specified ID is not accessible."},
		{Status: "404", Description: "An organizer with the specified event does not exist."},
	},
	Post: []Response{
		{Status: "201", Description: "Returns the data of the created organizer", Schema: "Organizer"},
		{Status: "400", Description: badWrite},
		{Status: "403", Description: "The user is not authorized to create organizers"},
	},
	Delete: []Response{
		{Status: "200", Description: "Deletes an organizer and returns its data", Schema: "Organizer"},
		{Status: "400", Description: "The organizer post ID is missing or does not exist."},
		{Status: "403", Description: "The current user cannot delete the organizer with the " +
			"specified ID."},
		{Status: "410", Description: "The organizer with the specified ID has been deleted already."},
		{Status: "500", Description: "The organizer with the specified ID could not be deleted."},
	},
}

var categoryResponses = Responses{
	Archive: []Response{
		{Status: "200", Description: "Returns all the event categories matching the search criteria",
			Schema: "Term", List: "categories"},
		{Status: "400", Description: badQuery},
		{Status: "404", Description: pageNotFound},
	},
	Get: []Response{
		{Status: "200", Description: "Returns the data of the event category with the specified term ID",
			Schema: "Term"},
		{Status: "400", Description: "The event category term ID is missing."},
		{Status: "404", Description: "An event category with the specified term ID does not exist."},
	},
	Post: []Response{
		{Status: "200", Description: "Returns the data of the updated event category", Schema: "Term"},
		{Status: "201", Description: "Returns the data of the created event category", Schema: "Term"},
		{Status: "400", Description: badWrite},
		{Status: "403", Description: "The user is not authorized to create event categories"},
	},
	Delete: []Response{
		{Status: "200", Description: "Deletes an event category and returns its data", Schema: "Term"},
		{Status: "400", Description: "The event category term ID is missing or does not exist."},
		{Status: "403", Description: "The current user cannot delete the event category with the " +
			"specified term ID."},
		{Status: "410", Description: "The event category with the specified term ID has been deleted " +
			"already."},
		{Status: "500", Description: "The event category with the specified term ID could not be " +
			"deleted."},
	},
}

var tagResponses = Responses{
	Archive: []Response{
		{Status: "200", Description: "Returns all the event tags matching the search criteria",
			Schema: "Term", List: "tags"},
		{Status: "400", Description: badQuery},
		{Status: "404", Description: "No event tags match the query or the requested page was " +
			"not found."},
	},
	Get: []Response{
		{Status: "200", Description: "Returns the data of the event tag with the specified term ID",
			Schema: "Term"},
		{Status: "400", Description: "The event tag term ID is missing."},
		{Status: "404", Description: "An event tag with the specified term ID does not exist."},
	},
	Post: []Response{
		{Status: "200", Description: "Returns the data of the updated event tag", Schema: "Term"},
		{Status: "201", Description: "Returns the data of the created event tag", Schema: "Term"},
		{Status: "400", Description: badWrite},
		{Status: "403", Description: "The user is not authorized to create event tags"},
	},
	Delete: []Response{
		{Status: "200", Description: "Deletes an event tag and returns its data", Schema: "Term"},
		{Status: "400", Description: "The event tag term ID is missing or does not exist."},
		{Status: "403", Description: "The current user cannot delete the event tag with the specified " +
			"term ID."},
		{Status: "410", Description: "The event tag with the specified term ID has been deleted " +
			"already."},
		{Status: "500", Description: "The event tag with the specified term ID could not be deleted."},
	},
}
