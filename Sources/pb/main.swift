print("pb")
